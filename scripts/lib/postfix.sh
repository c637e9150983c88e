# shellcheck shell=bash
# Debian's Postfix for the bounce test (tests/it/bounces.rs): the relay Admiralty sends
# through, refusing one domain, so that Postfix itself writes the DSN. The test runs its own
# instance (own config and queue directories, loopback ports); installing the package starts
# no mail server when it finds no configuration, and the system's is never touched.
postfix_ensure_installed() {
  if command -v postfix >/dev/null 2>&1 || [[ -x /usr/sbin/postfix ]]; then
    return 0
  fi
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  echo "postfix postfix/main_mailer_type select No configuration" | "${sudo[@]}" debconf-set-selections
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postfix >/dev/null
}
