#!/usr/bin/env bash
# `make uninstall`: removes what scripts/install.sh put under DESTDIR/PREFIX, and nothing else.
# Usage: uninstall.sh DESTDIR PREFIX
set -euo pipefail
root="$1$2"
rm -f "$root/bin/pulsejack" "$root/share/man/man1/pulsejack.1.gz" "$root/share/man/man1"/pulsejack.*.1.gz \
    "$root/share/bash-completion/completions/pulsejack" "$root/share/zsh/vendor-completions/_pulsejack" \
    "$root/share/fish/vendor_completions.d/pulsejack.fish" "$root/lib/systemd/user/pulsejack@.service"
rm -rf "$root/lib/pulsejack" "$root/share/pulsejack" "$root/share/doc/pulsejack"
# The folders install.sh made, where nothing else is left in them.
for folder in share/bash-completion/completions share/bash-completion share/zsh/vendor-completions share/zsh \
    share/fish/vendor_completions.d share/fish lib/systemd/user lib/systemd share/man/man1 share/man share/doc; do
    rmdir "$root/$folder" 2>/dev/null || true
done
echo "removed pulsejack from $root"
