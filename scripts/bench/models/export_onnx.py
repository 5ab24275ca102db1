"""Export a sentence-transformers BERT folder to ONNX in the layout transformers.js loads locally.

Usage: python export_onnx.py <source folder> <target folder> [--quantize]

<target>/{config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json,
onnx/model.onnx[, onnx/model_quantized.onnx]}; then checks the ONNX output against the PyTorch
model on a few sentences (max abs difference of last_hidden_state and of the mean-pooled, unit
length sentence vectors) and exits non-zero when they disagree.
"""

import shutil
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from transformers import AutoModel, AutoTokenizer

SENTENCES = [
    "The cat sat on the mat.",
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt inspired.",
    "What is Caroline's identity?",
    "Melanie painted a sunrise over the lake last year; she plans to run a charity race next month.",
    "ok",
]
FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]
# transformers.js runs a mean-pooled model only on finite outputs this close to PyTorch's.
TOLERANCE_HIDDEN = 1e-3
MIN_COSINE_QUANTIZED = 0.95


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    m = mask[..., None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


class Encoder(torch.nn.Module):
    """The BERT body called by keyword (positional order differs between transformers versions)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: D102
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, return_dict=True)
        return out.last_hidden_state


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quantize = "--quantize" in sys.argv
    if len(args) != 2:
        print(__doc__)
        return 2
    source, target = Path(args[0]), Path(args[1])
    (target / "onnx").mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copy(source / name, target / name)

    torch.set_num_threads(1)
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    # Eager attention traces to plain MatMul/Softmax ops that any ONNX Runtime runs.
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()
    encoder = Encoder(model).eval()
    sample = tokenizer(SENTENCES[:2], padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch_size", 1: "sequence_length"} for n in names}
    axes["last_hidden_state"] = {0: "batch_size", 1: "sequence_length"}
    onnx_path = target / "onnx" / "model.onnx"
    t0 = time.time()
    with torch.no_grad():
        torch.onnx.export(
            encoder,
            (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
            str(onnx_path),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            do_constant_folding=True,
            dynamo=False,
        )
    print(f"exported {onnx_path} ({onnx_path.stat().st_size / 1e6:.1f} MB) in {time.time() - t0:.1f} s")
    # Some exporters leave the weights in a side file; transformers.js wants one file.
    if (target / "onnx" / "model.onnx.data").exists():
        raise SystemExit("the exporter wrote external data (onnx/model.onnx.data); transformers.js expects one file")

    if quantize:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        t0 = time.time()
        quantized = target / "onnx" / "model_quantized.onnx"
        # Per-channel uint8 weights: per-tensor int8 gave cosine 0.87 to fp32 on a short text here.
        quantize_dynamic(str(onnx_path), str(quantized), weight_type=QuantType.QUInt8, per_channel=True)
        print(f"quantized {quantized} ({quantized.stat().st_size / 1e6:.1f} MB) in {time.time() - t0:.1f} s")

    # A padded batch, one unpadded sentence, and a long text: the trace must not have baked in a shape or mask.
    batches = [SENTENCES, [SENTENCES[1]], [" ".join(SENTENCES * 12)]]
    variants = [("fp32", onnx_path)]
    if quantize:
        variants.append(("q8", target / "onnx" / "model_quantized.onnx"))
    sessions = {label: ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]) for label, path in variants}
    worst = {label: [0.0, 0.0, 1.0] for label, _ in variants}
    width = 0
    longest = 0
    for texts in batches:
        batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
        with torch.no_grad():
            reference = encoder(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).numpy()
        feeds = {n: batch[n].numpy().astype(np.int64) for n in names}
        mask = feeds["attention_mask"]
        longest = max(longest, mask.shape[1])
        ref_vectors = mean_pool(reference, mask)
        width = ref_vectors.shape[1]
        for label, session in sessions.items():
            hidden = session.run(["last_hidden_state"], feeds)[0]
            vectors = mean_pool(hidden, mask)
            # Padding positions are masked out of the pooled vector: compare real tokens only.
            w = worst[label]
            w[0] = max(w[0], float(np.abs((hidden - reference) * mask[..., None]).max()))
            w[1] = max(w[1], float(np.abs(vectors - ref_vectors).max()))
            w[2] = min(w[2], float((vectors * ref_vectors).sum(axis=1).min()))
    ok = True
    for label, (diff, vdiff, cos) in worst.items():
        print(f"{label} vs PyTorch: max abs diff last_hidden_state {diff:.2e}, sentence vectors {vdiff:.2e}, min cosine {cos:.6f} ({len(SENTENCES)} padded, 1 unpadded, 1 of {longest} tokens)")
        if label == "fp32" and diff > TOLERANCE_HIDDEN:
            ok = False
        if label == "q8" and cos < MIN_COSINE_QUANTIZED:
            ok = False
    print(f"sentence vector width {width}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
