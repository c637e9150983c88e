# shellcheck shell=bash
# The mail-authentication tests (tests/it/mailout.rs) check Admiralty's DKIM signatures with an
# independent verifier, Python's dkimpy (with PyNaCl for Ed25519, RFC 8463), and `gm dns`
# against a DNS stub on loopback, dnslib's zone resolver: all from PyPI.
install_mailauth_test_tools() {
  if ! python3 -c 'import dkim, nacl, dnslib' >/dev/null 2>&1; then
    echo "installing dkimpy, pynacl and dnslib (Python) for the mail-authentication tests" >&2
    python3 -m pip install --quiet --disable-pip-version-check dkimpy pynacl dnslib
  fi
}
