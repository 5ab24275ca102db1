#!/usr/bin/env bash
# Brings the public vaults the search benchmarks read (the gym's corpora and link recovery), each at
# the commit its questions were written against, into .bench-out/vaults/<name>-<commit 7> (plain
# Markdown files, no .git). Their notes are not kept in this repository: obsidian-tasks is MIT but
# only its docs are wanted; the Spanish notes have no licence file; Obsidian's help is theirs.
#
# Usage: scripts/bench/get-vaults.sh [name=source ...]
#   name:   tasks-docs | apuntes | obsidian-help (default: all three)
#   source: a local git directory (bare or not) that holds the commit, or a URL (default: GitHub)
# A vault that cannot be had is skipped with a loud SKIP line (the bench then leaves its row out).
set -uo pipefail
declare -A REPO=([tasks-docs]=obsidian-tasks-group/obsidian-tasks [apuntes]=ivanaf03/Apuntes-Obsidian [obsidian-help]=obsidianmd/obsidian-help)
# tasks-docs: 2026-08-21 "Merge pull request #4010", docs/ (118 notes: API-style reference pages beside guides).
# apuntes: 2025-01-14, a student's course notes in Spanish (Ingeniería Informática), 686 Markdown files.
# obsidian-help: 2026-08-20, Obsidian's own help in English, en/ (173 documentation notes densely linked).
declare -A COMMIT=([tasks-docs]=cc0fce3c1326d18e2bdb7020eaf4c52e885da569 [apuntes]=7f17b20046dd007107b77ade0b1bc210b3aee82e [obsidian-help]=fa179e91e86eaff5859226cc045c81000d64e3cd)
declare -A SUBDIR=([tasks-docs]=docs [apuntes]=. [obsidian-help]=en)
declare -A SOURCE=()
for pair in "$@"; do SOURCE[${pair%%=*}]="${pair#*=}"; done
names=("${!REPO[@]}")
[ $# -gt 0 ] && names=("${!SOURCE[@]}")

bring() { # <name>
	local name="$1" commit="${COMMIT[$1]}" source="${SOURCE[$1]:-https://github.com/${REPO[$1]}.git}"
	local dest=".bench-out/vaults/$name-${commit:0:7}"
	if [ -f "$dest/.pinned-commit" ] && [ "$(cat "$dest/.pinned-commit")" = "$commit" ]; then
		echo "$name: $dest already holds ${commit:0:7}"
		return 0
	fi
	local work gitdir
	work="$(mktemp -d)"
	gitdir="$source"
	[ -d "$source/.git" ] && gitdir="$source/.git"
	if [ ! -d "$source" ]; then
		git init -q --bare "$work/repo.git"
		gitdir="$work/repo.git"
		git --git-dir="$gitdir" fetch -q --depth 1 "$source" "$commit" 2>/dev/null || true
	fi
	if ! git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null; then
		echo "SKIP $name: $source does not give commit $commit of ${REPO[$name]}; pass $name=<a local clone that holds it>." >&2
		rm -rf "$work"
		return 0
	fi
	rm -rf "$dest" && mkdir -p "$dest"
	# Markdown only: the large binaries of a snapshot may be absent, and search reads notes.
	local glob="**/*.md"
	[ "${SUBDIR[$name]}" != . ] && glob="${SUBDIR[$name]}/**/*.md"
	git --git-dir="$gitdir" archive "$commit" -- ":(glob)$glob" | tar -x -C "$dest"
	if [ "${SUBDIR[$name]}" != . ]; then
		mv "$dest/${SUBDIR[$name]}" "$dest.tmp" && rm -rf "$dest" && mv "$dest.tmp" "$dest"
	fi
	echo "$commit" >"$dest/.pinned-commit"
	rm -rf "$work"
	echo "$name: extracted $(find "$dest" -name '*.md' | wc -l) notes of ${REPO[$name]}@${commit:0:7} into $dest"
}
for name in "${names[@]}"; do
	[ -n "${REPO[$name]:-}" ] || { echo "unknown vault $name (${!REPO[*]})" >&2; exit 2; }
	bring "$name"
done
