# Debian's Postfix, for the test that has a real MTA deliver to the SMTP listener over STARTTLS
# (tests/it/smtp_tls.rs runs a private instance with its own configuration, queue and port on
# loopback; the system's Postfix is never configured or started). Installing the package starts
# no mail server when it finds no configuration.
ensure_postfix() {
  command -v postfix >/dev/null 2>&1 && return 0
  local sudo=()
  [[ "$(id -u)" -eq 0 ]] || sudo=(sudo)
  echo "Postfix is not installed: installing it with apt-get"
  # "No configuration": no system mail server is set up or started.
  echo "postfix postfix/main_mailer_type select No configuration" | "${sudo[@]}" debconf-set-selections
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postfix >/dev/null
}
