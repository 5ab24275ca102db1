#!/usr/bin/env bash
# Puts obsidian-community/obsidian-hub, at the commit the questions were written against, in a
# folder for `npm run bench -- vault-retrieval`. The hub has no licence file, so its notes are not
# kept in this repository: this script brings them.
#
# Usage: scripts/bench/vault-retrieval/get-obsidian-hub.sh [source] [dest]
#   source: a local git directory (bare or not) holding the commit, or a URL
#           (default https://github.com/obsidian-community/obsidian-hub.git)
#   dest:   default .bench-out/vault-retrieval/obsidian-hub-<commit 7>
# The folder is plain files (no .git); sync in the benchmark writes nothing into it.
set -euo pipefail
COMMIT=dae4bcf14d27eb3691aa73b2e906e0d1dc7b1e0c # 2026-05-07, "Merge pull request #853", 6,765 files
source="${1:-https://github.com/obsidian-community/obsidian-hub.git}"
dest="${2:-.bench-out/vault-retrieval/obsidian-hub-${COMMIT:0:7}}"
if [ -f "$dest/.pinned-commit" ] && [ "$(cat "$dest/.pinned-commit")" = "$COMMIT" ]; then
	echo "$dest already holds $COMMIT"
	exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -d "$source" ]; then
	gitdir="$source"
	[ -d "$source/.git" ] && gitdir="$source/.git"
else
	git init -q --bare "$work/repo.git"
	if ! git --git-dir="$work/repo.git" fetch -q --depth 1 "$source" "$COMMIT"; then
		echo "Could not fetch $COMMIT from $source. Pass a local clone of obsidian-community/obsidian-hub that holds it." >&2
		exit 1
	fi
	gitdir="$work/repo.git"
fi
if ! git --git-dir="$gitdir" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
	echo "$source does not hold commit $COMMIT of obsidian-community/obsidian-hub." >&2
	exit 1
fi
rm -rf "$dest"
mkdir -p "$dest"
git --git-dir="$gitdir" archive "$COMMIT" | tar -x -C "$dest"
echo "$COMMIT" >"$dest/.pinned-commit"
echo "extracted $(find "$dest" -name '*.md' | wc -l) notes of obsidian-hub@${COMMIT:0:7} into $dest"
