#!/usr/bin/env python3
"""Mail as a weapon: the probes of issue 17 items 7 (the reply limit's race), 8, 9 and 10, run
against a real `gm serve` over loopback, with real clients (smtplib in, an aiosmtpd sink as the
outbound relay, which records every message Admiralty sends).

    bench/abuse/weapon.py --gm target/debug/gm --pg-admin-url postgres://USER:PW@HOST:PORT/postgres

It makes a fresh database (seeded with the demo zine: four players of a Barmy game at
example.org, turn 2 open), starts `gm serve` on free ports with default settings (2 inbox
workers, the default limits), and prints one line per figure. Every figure is what reached the
sink, so it is what the world would have received.
"""

import argparse
import os
import secrets
import socket
import smtplib
import subprocess
import sys
import threading
import time
import urllib.parse

from aiosmtpd.controller import Controller

DOMAIN = "admiralty.example"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Sink:
    """The outbound relay: keeps (envelope recipient, size in bytes, text) of every message."""

    def __init__(self):
        self.lock = threading.Lock()
        self.mails = []

    async def handle_DATA(self, server, session, envelope):
        data = envelope.content if isinstance(envelope.content, bytes) else envelope.content.encode()
        with self.lock:
            for rcpt in envelope.rcpt_tos:
                self.mails.append((rcpt, len(data), data.decode("utf-8", "replace")))
        return "250 OK"

    def snapshot(self):
        with self.lock:
            return list(self.mails)


def psql(url, sql):
    out = subprocess.run(
        [PSQL, "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", url, "-c", sql],
        check=True, capture_output=True, text=True,
    )
    return out.stdout.strip()


def send(port, raw, mail_from, rcpt):
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail(mail_from, [rcpt], raw)


def forged(victim, n, body="FIRE B7\r\n", tag="f"):
    """A small forged message: From the victim, to Admiralty's plain address, no token."""
    mid = f"<{tag}{n}.{secrets.token_hex(6)}@attacker.example>"
    return (
        f"From: {victim}\r\nTo: orders@{DOMAIN}\r\nSubject: hi\r\nMessage-ID: {mid}\r\n\r\n{body}"
    ).encode()


def from_player(address, token, n, body):
    mid = f"<p{n}.{secrets.token_hex(6)}@example.org>"
    return (
        f"From: {address}\r\nTo: orders+{token}@{DOMAIN}\r\nSubject: Re: turn 2\r\n"
        f"Message-ID: {mid}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    ).encode()


def settle(db, sink, quiet=7.0, limit=180):
    """Waits until every message is processed, the outbox is empty, and the sink is quiet."""
    start = time.time()
    last = (-1, time.time())
    while time.time() - start < limit:
        pending = psql(db, "SELECT (SELECT count(*) FROM inbound_messages WHERE status = 'new') + "
                           "(SELECT count(*) FROM outbound_messages WHERE status = 'queued')")
        count = len(sink.snapshot())
        if count != last[0]:
            last = (count, time.time())
        if pending == "0" and time.time() - last[1] > quiet:
            return
        time.sleep(0.5)
    print("warning: did not settle", file=sys.stderr)


def received(sink, since, predicate):
    return [m for m in sink.snapshot()[since:] if predicate(m[0].lower())]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gm", required=True)
    parser.add_argument("--pg-admin-url", required=True)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()

    name = f"abuse_weapon_{secrets.token_hex(4)}"
    psql(args.pg_admin_url, f'CREATE DATABASE "{name}"')
    parts = urllib.parse.urlsplit(args.pg_admin_url)
    db = urllib.parse.urlunsplit(parts._replace(path="/" + name))

    sink = Sink()
    sink_port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=sink_port)
    controller.start()

    smtp_port, http_port = free_port(), free_port()
    env = dict(os.environ)
    # The test mail comes from domains with no DNS here: no SPF/DKIM/DMARC lookups.
    env.setdefault("ADMIRALTY_MAIL_AUTH", "off")
    env.update({
        "DATABASE_URL": db,
        "ADMIRALTY_MAIL_DOMAIN": DOMAIN,
        "ADMIRALTY_SMTP_URL": f"smtp://127.0.0.1:{sink_port}",
        "ADMIRALTY_SMTP_LISTEN": f"127.0.0.1:{smtp_port}",
        "ADMIRALTY_BIND": f"127.0.0.1:{http_port}",
        "ADMIRALTY_LOG": "warn",
    })
    subprocess.run([args.gm, "migrate", "--seed-demo"], env=env, check=True, capture_output=True)
    gm = subprocess.Popen([args.gm, "serve"], env=env)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", smtp_port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        probes(db, sink, smtp_port, env, args.gm)
    finally:
        gm.terminate()
        gm.wait(timeout=30)
        controller.stop()
        if args.keep:
            print(f"database kept: {db}")
        else:
            psql(args.pg_admin_url, f'DROP DATABASE "{name}" WITH (FORCE)')


def probes(db, sink, port, env, gm_path):
    # 8. Backscatter: one small forgery, and the refusal it earns.
    mark = len(sink.snapshot())
    raw = forged("Victim <victim@victim.example>", 0)
    send(port, raw, "victim@victim.example", f"orders@{DOMAIN}")
    settle(db, sink)
    got = received(sink, mark, lambda r: "victim.example" in r)
    size = got[0][1] if got else 0
    print(f"8  refusal to one forgery: {len(got)} mail(s), {size} bytes for a {len(raw)}-byte "
          f"forgery ({size / len(raw):.1f}x); HELP in it: {bool(got) and 'PASSWORD <secret>' in got[0][2]}")

    # 8. One mailbox under many spellings: 25 forgeries each.
    spellings = ["victim@victim.example", "victim+1@victim.example", "victim+2@victim.example",
                 '"victim"@victim.example', "VICTIM@victim.example", "Victim@VICTIM.EXAMPLE",
                 "victim+x@Victim.Example", '"victim+3"@victim.example']
    mark = len(sink.snapshot())
    for spelling in spellings:
        for n in range(25):
            send(port, forged(spelling, n, tag="s"), "x@attacker.example", f"orders@{DOMAIN}")
    settle(db, sink)
    got = received(sink, mark, lambda r: "victim" in r and "victim.example" in r)
    print(f"8  one mailbox, {len(spellings)} spellings x 25 forgeries: {len(got)} refusals reached it "
          f"(plus 1 earlier)")

    # 8. One domain, many mailboxes: 60 local parts x 3 forgeries.
    mark = len(sink.snapshot())
    for n in range(60):
        for k in range(3):
            send(port, forged(f"user{n}@domain.example", k, tag=f"d{n}-"), "x@attacker.example",
                 f"orders@{DOMAIN}")
    settle(db, sink)
    got = received(sink, mark, lambda r: r.endswith("@domain.example"))
    print(f"8  one domain, 60 mailboxes x 3 forgeries: {len(got)} refusals reached the domain")

    # 8. Admiralty's own addresses and mail-system local parts.
    own = [f"orders@{DOMAIN}", f"orders+abc@{DOMAIN}", f"ORDERS@{DOMAIN.upper()}",
           '"postmaster"@elsewhere.example', "Mailer-Daemon+x@elsewhere.example"]
    mark = len(sink.snapshot())
    for n, address in enumerate(own):
        send(port, forged(address, n, tag="own"), "x@attacker.example", f"orders@{DOMAIN}")
    settle(db, sink)
    got = received(sink, mark, lambda r: True)
    print(f"8  forgeries from Admiralty's own / system addresses ({len(own)}): {len(got)} answered")

    # 7. The race: 200 forgeries from one address over 10 connections at once.
    def burst(thread):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            for n in range(20):
                smtp.sendmail("x@attacker.example", [f"orders@{DOMAIN}"],
                              forged("race@race.example", thread * 100 + n, tag="r"))
    mark = len(sink.snapshot())
    threads = [threading.Thread(target=burst, args=(t,)) for t in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    settle(db, sink)
    got = received(sink, mark, lambda r: r == "race@race.example")
    print(f"7  200 concurrent forgeries from one address (10 connections), 2 workers: {len(got)} answered")

    # 9. TELL: Nelson relays to Villeneuve, 30 messages of 10 TELLs.
    token = psql(db, "SELECT p.reply_token FROM players p JOIN subscribers s ON s.id = p.subscriber_id "
                     "WHERE s.email = 'nelson@example.org'")
    mark = len(sink.snapshot())
    tells = "\r\n\r\n".join(f"TELL Pierre Villeneuve: parley {n}?" for n in range(10)) + "\r\n"
    for n in range(30):
        send(port, from_player("nelson@example.org", token, n, tells), "nelson@example.org",
             f"orders+{token}@{DOMAIN}")
    settle(db, sink)
    got = received(sink, mark, lambda r: r == "villeneuve@example.org")
    print(f"9  300 TELLs from one player to another: {len(got)} relayed")
    # 9. One TELL of 100,000 characters, from a player whose budget is untouched.
    token = psql(db, "SELECT p.reply_token FROM players p JOIN subscribers s ON s.id = p.subscriber_id "
                     "WHERE s.email = 'collingwood@example.org'")
    mark = len(sink.snapshot())
    send(port, from_player("collingwood@example.org", token, 2000,
                           "TELL Pierre Villeneuve: " + "parley " * 14286 + "\r\n"),
         "collingwood@example.org", f"orders+{token}@{DOMAIN}")
    settle(db, sink)
    got = received(sink, mark, lambda r: r == "villeneuve@example.org")
    print(f"9  one TELL of 100,000 characters: {len(got)} relayed, {sum(m[1] for m in got)} bytes")

    # 10. Press: one 200,000-character press, then 101 entries, from Gravina.
    token = psql(db, "SELECT p.reply_token FROM players p JOIN subscribers s ON s.id = p.subscriber_id "
                     "WHERE s.email = 'gravina@example.org'")
    big = "PRESS " + ("Rule Britannia " * 14000)[:200000] + "\r\n"
    send(port, from_player("gravina@example.org", token, 1000, big), "gravina@example.org",
         f"orders+{token}@{DOMAIN}")
    settle(db, sink)
    many = "\r\n\r\n".join(f"PRESS Gravina's bulletin number {n}." for n in range(101)) + "\r\n"
    send(port, from_player("gravina@example.org", token, 1001, many), "gravina@example.org",
         f"orders+{token}@{DOMAIN}")
    settle(db, sink)
    entries, chars = psql(db, "SELECT count(*) || ' ' || coalesce(sum(char_length(x.text)), 0) FROM press x "
                              "JOIN players p ON p.id = x.player_id JOIN subscribers s ON s.id = p.subscriber_id "
                              "WHERE s.email = 'gravina@example.org'").split()
    game = psql(db, "SELECT id FROM games LIMIT 1")
    mark = len(sink.snapshot())
    subprocess.run([gm_path, "game", game, "resolve-now"], env=env, check=True, capture_output=True)
    settle(db, sink)
    reports = received(sink, mark, lambda r: r.endswith("@example.org"))
    biggest = max((m[1] for m in reports), default=0)
    bulletins = max((m[2].count("bulletin number") for m in reports), default=0)
    print(f"10 press stored for one player: {entries} entries, {chars} characters; "
          f"report mailed to {len(reports)} subscribers, largest {biggest} bytes, "
          f"{bulletins} of the 101 entries in it")

    # 8. Everyone: 350 forgeries, each from a mailbox of a domain of its own.
    mark = len(sink.snapshot())
    def spray(thread):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            for n in range(thread, 350, 5):
                smtp.sendmail("x@attacker.example", [f"orders@{DOMAIN}"],
                              forged(f"someone@site{n}.example", n, tag="w"))
    threads = [threading.Thread(target=spray, args=(t,)) for t in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    settle(db, sink)
    got = received(sink, mark, lambda r: r.startswith("someone@site"))
    total = len([m for m in sink.snapshot() if not m[0].endswith("@example.org")])
    print(f"8  350 forgeries from 350 domains: {len(got)} refusals; refusals so far in this run: {total}")


PSQL = next((p for p in ["/usr/lib/postgresql/17/bin/psql", "/usr/lib/postgresql/16/bin/psql",
                          "/usr/lib/postgresql/15/bin/psql", "psql"] if p == "psql" or os.path.exists(p)))

if __name__ == "__main__":
    main()
