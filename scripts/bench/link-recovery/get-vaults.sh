#!/usr/bin/env bash
# Puts the link-recovery vaults, at pinned commits, in folders for `npm run bench -- link-recovery`.
# Their notes are not kept in this repository (no licence here to copy them under): this script
# brings them. A vault that cannot be fetched is skipped with a loud SKIP line; the bench then
# runs on the others and says which are missing.
#
# Usage: scripts/bench/link-recovery/get-vaults.sh [dest root, default .bench-out/link-recovery]
#   LINK_RECOVERY_SOURCE_<NAME>=<local git dir> uses a local clone instead of GitHub
#   (NAME: OBSIDIAN_HELP, APUNTES).
set -uo pipefail
root="${1:-.bench-out/link-recovery}"

# name | repository | commit | folder of the repository that is the vault | source override
VAULTS=(
	# Obsidian's own help, English: 173 documentation notes densely linked (2026-08-20).
	"obsidian-help|https://github.com/obsidianmd/obsidian-help.git|fa179e91e86eaff5859226cc045c81000d64e3cd|en|${LINK_RECOVERY_SOURCE_OBSIDIAN_HELP:-}"
	# A student's university notes in Spanish (databases, networks, security...): 286 notes (2025-01-14).
	"apuntes|https://github.com/ivanaf03/Apuntes-Obsidian.git|7f17b20046dd007107b77ade0b1bc210b3aee82e|.|${LINK_RECOVERY_SOURCE_APUNTES:-}"
)

bring() {
	local name="$1" url="$2" commit="$3" folder="$4" local_source="$5"
	local dest="$root/$name-${commit:0:7}"
	if [ -f "$dest/.pinned-commit" ] && [ "$(cat "$dest/.pinned-commit")" = "$commit" ]; then
		echo "$dest already holds $commit"
		return 0
	fi
	local work gitdir
	work="$(mktemp -d)"
	gitdir="$local_source"
	if [ -z "$gitdir" ]; then
		gitdir="$work/repo.git"
		git init -q --bare "$gitdir"
		git --git-dir="$gitdir" fetch -q --depth 1 "$url" "$commit" || true
	fi
	[ -d "$gitdir/.git" ] && gitdir="$gitdir/.git"
	if ! git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null; then
		echo "SKIP $name: could not get commit $commit of $url (set LINK_RECOVERY_SOURCE_* to a local clone)" >&2
		rm -rf "$work"
		return 0
	fi
	rm -rf "$dest"
	mkdir -p "$dest"
	# Notes only: attachments are not read, and a partial clone may not hold them.
	if [ "$folder" = "." ]; then
		git --git-dir="$gitdir" archive "$commit" -- ':(glob)**/*.md' | tar -x -C "$dest"
	else
		git --git-dir="$gitdir" archive "$commit" -- ":(glob)$folder/**/*.md" | tar -x -C "$dest" --strip-components=1
	fi
	echo "$commit" >"$dest/.pinned-commit"
	echo "extracted $(find "$dest" -name '*.md' | wc -l) notes of $name@${commit:0:7} into $dest"
	rm -rf "$work"
}

for line in "${VAULTS[@]}"; do
	IFS='|' read -r name url commit folder local_source <<<"$line"
	bring "$name" "$url" "$commit" "$folder" "$local_source"
done
