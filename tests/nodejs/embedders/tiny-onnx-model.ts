import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/*
 * A tiny sentence encoder written from scratch for tests: an ONNX graph with one Gather (token
 * embedding lookup: input_ids → last_hidden_state), a WordLevel tokenizer.json and a BERT
 * config.json. transformers.js loads it through its real code paths (config, tokenizer, ONNX
 * Runtime session, mean pooling), with no network and no shipped weights.
 */

// Protocol buffers, just enough for onnx.proto: varints, length-delimited fields.
function varint(value: number): number[] {
	const out: number[] = [];
	let v = BigInt(value);
	do {
		let byte = Number(v & 0x7fn);
		v >>= 7n;
		if (v > 0n) byte |= 0x80;
		out.push(byte);
	} while (v > 0n);
	return out;
}
const utf8 = new TextEncoder();
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, n: number) => [...tag(field, 0), ...varint(n)];
const bytes = (field: number, data: readonly number[] | Uint8Array) => [...tag(field, 2), ...varint(data.length), ...data];
const str = (field: number, text: string) => bytes(field, utf8.encode(text));

function valueInfo(name: string, elemType: number, dims: readonly (number | string)[]): number[] {
	const shape = dims.flatMap((d) => bytes(1, typeof d === "number" ? int(1, d) : str(2, d)));
	const tensorType = [...int(1, elemType), ...bytes(2, shape)];
	return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

const FLOAT = 1;
const INT64 = 7;

/** ModelProto bytes: last_hidden_state = Gather(embeddings[vocab, dims], input_ids). */
export function tinyEncoderOnnx(table: Float32Array, vocab: number, dims: number): Uint8Array {
	const raw = new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
	const initializer = [...int(1, vocab), ...int(1, dims), ...int(2, FLOAT), ...str(8, "embeddings"), ...bytes(9, raw)];
	const gather = [...str(1, "embeddings"), ...str(1, "input_ids"), ...str(2, "last_hidden_state"), ...str(3, "lookup"), ...str(4, "Gather")];
	const graph = [
		...bytes(1, gather),
		...str(2, "tiny-encoder"),
		...bytes(5, initializer),
		...bytes(11, valueInfo("input_ids", INT64, ["batch", "sequence"])),
		...bytes(11, valueInfo("attention_mask", INT64, ["batch", "sequence"])),
		...bytes(12, valueInfo("last_hidden_state", FLOAT, ["batch", "sequence", dims])),
	];
	const opset = [...str(1, ""), ...int(2, 13)];
	return new Uint8Array([...int(1, 8), ...str(2, "engrama-tests"), ...bytes(7, graph), ...bytes(8, opset)]);
}

// "query" and "passage" last (E5's prompts; earlier words keep their directions).
export const TINY_WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "cat", "cats", "dog", "sat", "mat", "ran", "park", "the", "on", "in", "a", "sqlite", "graph", "database", "vector", "search", "query", "passage"];
export const TINY_DIMS = 16;

/**
 * Writes `<root>/<modelId>/` with config.json, tokenizer.json, tokenizer_config.json and the
 * weights as both onnx/model.onnx (fp32) and onnx/model_quantized.onnx (the q8 file name).
 * Each word gets its own direction, so texts sharing words have similar mean-pooled vectors.
 */
export function writeTinyModel(root: string, modelId: string): string {
	const dir = join(root, ...modelId.split("/"));
	mkdirSync(join(dir, "onnx"), { recursive: true });
	const vocab = TINY_WORDS.length;
	const table = new Float32Array(vocab * TINY_DIMS);
	for (let w = 0; w < vocab; w++) {
		table[w * TINY_DIMS + (w % TINY_DIMS)] = 1;
		table[w * TINY_DIMS + ((w * 7 + 3) % TINY_DIMS)] += 0.25;
	}
	const onnx = tinyEncoderOnnx(table, vocab, TINY_DIMS);
	writeFileSync(join(dir, "onnx", "model.onnx"), onnx);
	writeFileSync(join(dir, "onnx", "model_quantized.onnx"), onnx);
	writeFileSync(join(dir, "config.json"), JSON.stringify({ model_type: "bert", architectures: ["BertModel"], hidden_size: TINY_DIMS }));
	const special = TINY_WORDS.slice(0, 4).map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
	const cls = { id: "[CLS]", ids: [2], tokens: ["[CLS]"] };
	const sep = { id: "[SEP]", ids: [3], tokens: ["[SEP]"] };
	writeFileSync(
		join(dir, "tokenizer.json"),
		JSON.stringify({
			version: "1.0",
			truncation: null,
			padding: null,
			added_tokens: special,
			normalizer: { type: "Lowercase" },
			pre_tokenizer: { type: "Whitespace" },
			post_processor: {
				type: "TemplateProcessing",
				single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
				pair: [{ Sequence: { id: "A", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }],
				special_tokens: { "[CLS]": cls, "[SEP]": sep },
			},
			decoder: null,
			model: { type: "WordLevel", vocab: Object.fromEntries(TINY_WORDS.map((w, i) => [w, i])), unk_token: "[UNK]" },
		}),
	);
	writeFileSync(
		join(dir, "tokenizer_config.json"),
		JSON.stringify({ tokenizer_class: "BertTokenizer", pad_token: "[PAD]", unk_token: "[UNK]", cls_token: "[CLS]", sep_token: "[SEP]", model_max_length: 128 }),
	);
	return dir;
}
