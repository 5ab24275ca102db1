/** Sentence-embedding models with ONNX weights in the transformers.js layout, offered in settings. */
export interface LocalModelChoice {
	readonly id: string;
	readonly label: string;
	readonly dimensions: number;
	/** Approximate download (quantized weights + tokenizer), for the settings text. */
	readonly approxMB: number;
}

/**
 * all-MiniLM-L6-v2 stays the default: e5-small-v2 recalls more on LoCoMo's conversations (any@10
 * cross-validated 0.830 against 0.807, q8) but less on the real-vault notes (note hit@5 0.209
 * against 0.343), at twice the embedding time (docs/benchmarks-search.md). A memory keeps the
 * model of its vectors whichever default (vector-model.ts, settings.ts).
 */
export const DEFAULT_LOCAL_MODEL = "Xenova/all-MiniLM-L6-v2";

/** Offered by the welcome when a vault's notes are mostly not in English (first-run.ts samples them). */
export const MULTILINGUAL_LOCAL_MODEL = "Xenova/paraphrase-multilingual-MiniLM-L12-v2";

export const LOCAL_MODELS: readonly LocalModelChoice[] = [
	{ id: DEFAULT_LOCAL_MODEL, label: "all-MiniLM-L6-v2 (English, fast)", dimensions: 384, approxMB: 23 },
	{ id: "Xenova/e5-small-v2", label: "e5-small-v2 (English, best on conversations)", dimensions: 384, approxMB: 34 },
	{ id: "Xenova/bge-small-en-v1.5", label: "bge-small-en-v1.5 (English)", dimensions: 384, approxMB: 34 },
	{ id: MULTILINGUAL_LOCAL_MODEL, label: "paraphrase-multilingual-MiniLM-L12-v2 (50+ languages)", dimensions: 384, approxMB: 118 },
];

/** The files transformers.js reads for feature extraction with q8 weights. */
export const MODEL_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"] as const;

/** The ONNX Runtime WebAssembly binary that matches the onnxruntime-web glue inside main.js. */
export const ORT_WASM_FILE = "ort-wasm-simd-threaded.wasm";

export const DEFAULT_HUB_URL = "https://huggingface.co";

/**
 * The ONNX Runtime release main.js carries (package.json pins onnxruntime-web to it, with an npm
 * override under @huggingface/transformers) and the SHA-256 of its WebAssembly binary, taken from
 * the npm tarball (registry integrity checked by npm). A downloaded binary must match it byte for
 * byte, so a mirror or CDN cannot hand over anything else. tests/plugin/ort-pin.test.ts checks this
 * against node_modules and the built main.js.
 */
export const ORT_RELEASE = {
	version: "1.30.0",
	wasmSha256: "3398c10d07d229bd91b364548e130e0e51a8e5704b88c7c083ebbeb78842dee2",
	wasmSize: 14_239_897,
} as const;

/** jsDelivr serves every npm version of onnxruntime-web; `{version}` is filled in at run time. */
export const DEFAULT_RUNTIME_URL = "https://cdn.jsdelivr.net/npm/onnxruntime-web@{version}/dist";

/** A Hugging Face model id: owner/name, no path tricks. */
export function isValidModelId(id: string): boolean {
	return /^[\w.-]+\/[\w.-]+$/.test(id) && !id.includes("..");
}

export function localModelOf(model: string): string {
	return model.trim() || DEFAULT_LOCAL_MODEL;
}

/** Where the downloaded files go, for the settings text (model-location.ts; README "Local embeddings"). */
export const MODELS_DESKTOP_NOTE =
	"The files are kept outside the vault, in .engrama/obsidian-models in your home folder (shared by your vaults on this computer), so sync tools do not copy them.";
export const MODELS_MOBILE_NOTE =
	"On this device the files stay in this plugin's folder, inside the vault: a sync tool copies them to your other devices (up to 130 MB) unless you exclude its models folder from syncing.";
