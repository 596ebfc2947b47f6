#!/bin/sh
# Signs a push notification as the daemon's webhook checks it (GitHub's
# X-Hub-Signature-256): prints "sha256=<64 hex>", HMAC-SHA256 of the exact bytes on stdin
# under the secret, which is the first line of SECRET_FILE without its line end (LF, or
# CR LF as an editor on Windows writes it): the daemon reads it so too (lib/util/secret.c).
#   usage: scripts/webhook-sign.sh SECRET_FILE <body
# The secret reaches openssl as an argument, readable in the process list for that
# moment: run it where only the git server's user can look.
set -eu
[ $# = 1 ] || { echo "usage: webhook-sign.sh SECRET_FILE <body" >&2; exit 2; }
secret=
IFS= read -r secret <"$1" || true
cr=$(printf '\r')
secret=${secret%"$cr"}
[ -n "$secret" ] || { echo "webhook-sign.sh: '$1' holds no secret" >&2; exit 1; }
mac=$(openssl dgst -sha256 -hmac "$secret" -r | cut -d' ' -f1)
printf 'sha256=%s\n' "$mac"
