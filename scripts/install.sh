#!/usr/bin/env bash
# `make install`: lays out a built pulsejack under DESTDIR/PREFIX, as a Linux audio tool is.
#   bin/pulsejack                                  the release binary (Swift runtime inside), stripped
#   lib/pulsejack/liblsl.so.2                      liblsl, from the clone's venv (when make deps put it there)
#   lib/pulsejack/libLiteRt.so                     LiteRT, from the clone's venv (likewise), for camera pose
#   share/pulsejack/pose/*.tflite                  BlazePose's two models, from the clone's venv (likewise)
#   share/pulsejack/presets/                       the shipped presets, sounds, voices and sessions
#   share/man/man1/pulsejack*.1.gz                 one page per command (swift-argument-parser's generate-manual)
#   share/bash-completion/completions/pulsejack, share/zsh/vendor-completions/_pulsejack,
#   share/fish/vendor_completions.d/pulsejack.fish
#   lib/systemd/user/pulsejack@.service            the instance is a preset's name
#   share/doc/pulsejack/                           README and docs/ (its links hold there), licence, changelog
# Usage: install.sh DESTDIR PREFIX BINARY MAN_FOLDER
set -euo pipefail
destdir=$1 prefix=$2 binary=$3 man=$4
root="$destdir$prefix"
cd "$(dirname "$0")/.."

install -d "$root/bin" "$root/lib/pulsejack" "$root/share/pulsejack" "$root/share/man/man1" \
    "$root/share/bash-completion/completions" "$root/share/zsh/vendor-completions" "$root/share/fish/vendor_completions.d" \
    "$root/lib/systemd/user" "$root/share/doc/pulsejack"
install -m 755 -s "$binary" "$root/bin/pulsejack"

# liblsl travels beside the binary, where LSLLibrary looks (lib/pulsejack beside bin/).
liblsl=$(ls .build/venv/lib/python*/site-packages/pylsl/lib/liblsl.so.2 2>/dev/null | head -1 || true)
if [ -n "$liblsl" ]; then
    install -m 644 -s "$liblsl" "$root/lib/pulsejack/liblsl.so.2"
else
    echo "install: no liblsl in the clone's venv (make deps puts it there): pulsejack installs without Lab Streaming Layer" >&2
fi

# LiteRT and BlazePose's models, where LiteRTLibrary and PoseModelFiles look.
litert=$(ls .build/venv/lib/python*/site-packages/ai_edge_litert/libLiteRt.so 2>/dev/null | head -1 || true)
models=$(ls -d .build/venv/lib/python*/site-packages/mediapipe/modules 2>/dev/null | head -1 || true)
if [ -n "$litert" ] && [ -n "$models" ]; then
    install -m 644 "$litert" "$root/lib/pulsejack/libLiteRt.so"
    install -d "$root/share/pulsejack/pose"
    install -m 644 "$models/pose_detection/pose_detection.tflite" "$models/pose_landmark/pose_landmark_full.tflite" "$root/share/pulsejack/pose/"
else
    echo "install: no LiteRT or BlazePose models in the clone's venv (make deps puts them there): pulsejack installs without camera pose" >&2
fi

# The presets, without the scripts that make their sounds and sessions.
rm -rf "$root/share/pulsejack/presets"
cp -R presets "$root/share/pulsejack/presets"
find "$root/share/pulsejack/presets" -name '*.sh' -delete
find "$root/share/pulsejack/presets" -type d -exec chmod 755 {} + -o -type f -exec chmod 644 {} +

# generate-manual names a subcommand's page pulsejack.run.1 but its NAME "pulsejack run", which
# man-db's index (lexgrog) cannot parse: NAME gets the page's name, the synopsis keeps the command.
for page in "$man"/*.1; do
    name=$(basename "$page" .1)
    command=${name//./ }
    sed -e "s/^\.Nm \"$command\"\$/.Nm $name/" -e "s/^\.Nm\$/.Nm \"$command\"/" -e 's/^\.Nd "\(.*\)"$/.Nd \1/' "$page" \
        | gzip -9n > "$root/share/man/man1/$name.1.gz"
    chmod 644 "$root/share/man/man1/$name.1.gz"
done

# Completions from the installed binary itself, so they match its options.
# (bash-completion sources its files: no #! line.)
"$root/bin/pulsejack" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/share/bash-completion/completions/pulsejack"
"$root/bin/pulsejack" --generate-completion-script zsh > "$root/share/zsh/vendor-completions/_pulsejack"
"$root/bin/pulsejack" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/pulsejack.fish"
chmod 644 "$root/share/bash-completion/completions/pulsejack" "$root/share/zsh/vendor-completions/_pulsejack" \
    "$root/share/fish/vendor_completions.d/pulsejack.fish"

sed "s|@BINDIR@|$prefix/bin|g" packaging/pulsejack@.service.in > "$root/lib/systemd/user/pulsejack@.service"
chmod 644 "$root/lib/systemd/user/pulsejack@.service"

install -m 644 README.md "$root/share/doc/pulsejack/README.md"
install -d "$root/share/doc/pulsejack/docs"
install -m 644 docs/*.md docs/*.png "$root/share/doc/pulsejack/docs/"
install -m 644 packaging/copyright "$root/share/doc/pulsejack/copyright"
gzip -9n < packaging/changelog > "$root/share/doc/pulsejack/changelog.gz"
chmod 644 "$root/share/doc/pulsejack/changelog.gz"
echo "installed pulsejack $("$root/bin/pulsejack" --version) under $root"
