#!/usr/bin/env python3
"""The network doors under abuse (issue 17, items 1, 3, 4, 5): what one client on loopback
does to a running `gm serve`, measured, for the rows of docs/evidence.md's "Abuse" section.

    bench/abuse-doors.py --gm target/debug/gm --admin-url postgres://USER:PASS@127.0.0.1:PORT/postgres

Each probe starts its own `gm serve` (default settings unless the probe says otherwise) on a
fresh database made and migrated by that same binary, so the script measures a build from
before the limits as well as one with them. It prints one `RESULT probe=value` line per
figure. Needs psql (PostgreSQL's client) and prlimit (util-linux).
"""

import argparse
import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

PSQL = next(
    (
        os.path.join(d, "psql")
        for d in sorted(
            (f"/usr/lib/postgresql/{v}/bin" for v in os.listdir("/usr/lib/postgresql")),
            reverse=True,
        )
        if os.path.exists(os.path.join(d, "psql"))
    ),
    "psql",
)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Serving:
    """A `gm serve` on a fresh database, with its ports."""

    def __init__(self, gm, admin_url, env):
        self.db = "abuse_" + secrets.token_hex(4)
        subprocess.run([PSQL, admin_url, "-qc", f'CREATE DATABASE "{self.db}"'], check=True)
        self.admin_url = admin_url
        self.url = admin_url.rsplit("/", 1)[0] + "/" + self.db
        self.http, self.smtp = free_port(), free_port()
        full = dict(os.environ)
        # The test mail comes from domains with no DNS here: no SPF/DKIM/DMARC lookups.
        full.setdefault("ADMIRALTY_MAIL_AUTH", "off")
        full.update(
            DATABASE_URL=self.url,
            ADMIRALTY_BIND=f"127.0.0.1:{self.http}",
            ADMIRALTY_SMTP_LISTEN=f"127.0.0.1:{self.smtp}",
            ADMIRALTY_MAIL_DOMAIN="abuse.example.org",
            ADMIRALTY_LOG="warn",
        )
        full.update(env)
        subprocess.run([gm, "migrate"], env=full, check=True, capture_output=True)
        self.process = subprocess.Popen(
            [gm, "serve"], env=full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.http}/healthz", timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("gm serve did not start")

    def rss_mib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
        return 0

    def limit_open_files(self, limit):
        subprocess.run(
            ["prlimit", "--pid", str(self.process.pid), f"--nofile={limit}:{limit}"], check=True
        )

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        subprocess.run(
            [PSQL, self.admin_url, "-qc", f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)'],
            check=True,
        )


def result(name, value):
    print(f"RESULT {name}={value}", flush=True)


def seconds_until_closed(sock, cap):
    """Seconds until the peer answers or closes `sock`, or None after `cap`."""
    started = time.time()
    sock.settimeout(0.2)
    while time.time() - started < cap:
        try:
            sock.recv(4096)
            return time.time() - started
        except socket.timeout:
            continue
        except OSError:
            return time.time() - started
    return None


def shown(seconds, cap):
    return f">{cap} s (still open)" if seconds is None else f"{seconds:.1f} s"


def probe_header(gm, admin):
    serving = Serving(gm, admin, {})
    try:
        sock = socket.create_connection(("127.0.0.1", serving.http))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        result("unfinished_header_closed_after", shown(seconds_until_closed(sock, 60), 60))
    finally:
        serving.stop()


def probe_body(gm, admin):
    serving = Serving(gm, admin, {})
    try:
        sock = socket.create_connection(("127.0.0.1", serving.http))
        sock.sendall(
            b"POST /gm/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 100000\r\n\r\n"
        )
        sock.settimeout(0.2)
        started = time.time()
        closed = None
        while time.time() - started < 120:
            try:
                sock.sendall(b"name=aaaa&")
                sock.recv(4096)  # an answer, or b"" when closed
                closed = time.time() - started
                break
            except socket.timeout:
                continue
            except OSError:
                closed = time.time() - started
                break
        result("slow_body_closed_after", shown(closed, 120))
    finally:
        serving.stop()


def probe_flood(gm, admin, count):
    serving = Serving(gm, admin, {})
    try:
        serving.limit_open_files(4096)
        held = []
        for _ in range(count):
            try:
                sock = socket.create_connection(("127.0.0.1", serving.http), timeout=2)
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                held.append(sock)
            except OSError:
                break
        result("flood_connections_made", len(held))
        time.sleep(1)
        started = time.time()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{serving.http}/healthz", timeout=5) as r:
                result("flood_healthz", f"{r.status} in {1000 * (time.time() - started):.0f} ms")
        except OSError as error:
            result("flood_healthz", f"failed after {time.time() - started:.1f} s ({error})")
        started = time.time()
        try:
            smtp = socket.create_connection(("127.0.0.1", serving.smtp), timeout=5)
            smtp.settimeout(5)
            greeting = smtp.recv(100).decode(errors="replace").strip()
            result("flood_smtp_greeting", f"{greeting[:3]} in {1000 * (time.time() - started):.0f} ms")
        except OSError as error:
            result("flood_smtp_greeting", f"none after {time.time() - started:.1f} s ({error})")
        still_open = 0
        for sock in held:
            sock.settimeout(0.001)
            try:
                if sock.recv(1) != b"":
                    still_open += 1
            except socket.timeout:
                still_open += 1
            except OSError:
                pass
        result("flood_connections_still_held", still_open)
        for sock in held:
            sock.close()
    finally:
        serving.stop()


def smtp_open_data(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    reader = sock.makefile("rb")

    def reply():
        while True:
            line = reader.readline()
            if len(line) < 4 or line[3:4] == b" ":
                return line

    reply()
    for command in (
        b"EHLO client.example",
        b"MAIL FROM:<fred@example.org>",
        b"RCPT TO:<orders@abuse.example.org>",
        b"DATA",
    ):
        sock.sendall(command + b"\r\n")
        reply()
    return sock


def probe_smtp_memory(gm, admin, sessions, mib):
    serving = Serving(gm, admin, {"ADMIRALTY_DB_MAX_CONNECTIONS": "4"})
    try:
        before = serving.rss_mib()
        line = b"x" * 76 + b"\r\n"
        chunk = line * (65536 // len(line))
        socks = []
        lock = threading.Lock()

        def session():
            try:
                sock = smtp_open_data(serving.smtp)
                sock.sendall(b"Subject: big\r\n\r\n")
                for _ in range(mib * 1024 * 1024 // len(chunk)):
                    sock.sendall(chunk)
                with lock:
                    socks.append(sock)
            except OSError:
                pass

        threads = [threading.Thread(target=session) for _ in range(sessions)]
        for t in threads:
            t.start()
        peak = before
        while any(t.is_alive() for t in threads):
            peak = max(peak, serving.rss_mib())
            time.sleep(0.05)
        time.sleep(0.5)
        peak = max(peak, serving.rss_mib())
        result(
            "smtp_unfinished_data",
            f"{len(socks)} sessions x {mib} MiB held: {before} -> {peak} MiB (+{peak - before})",
        )
        for sock in socks:
            sock.close()
    finally:
        serving.stop()


def probe_smtp_noop(gm, admin):
    serving = Serving(gm, admin, {"ADMIRALTY_SMTP_SESSION_SECONDS": "10"})
    try:
        sock = socket.create_connection(("127.0.0.1", serving.smtp), timeout=5)
        sock.recv(200)
        started = time.time()
        ended = None
        while time.time() - started < 30:
            try:
                sock.sendall(b"NOOP\r\n")
                answer = sock.recv(200)
            except OSError:
                ended = time.time() - started
                break
            if not answer.startswith(b"250"):
                ended = time.time() - started
                break
            time.sleep(1)
        result("smtp_noop_every_second_session_ended_after", shown(ended, 30))
    finally:
        serving.stop()


def probe_webhook(gm, admin, bodies):
    serving = Serving(gm, admin, {"ADMIRALTY_WEBHOOK_SECRET": "a-long-shared-secret-0123"})
    try:
        before = serving.rss_mib()
        firsts = []

        def post():
            try:
                sock = socket.create_connection(("127.0.0.1", serving.http), timeout=30)
                sock.sendall(
                    b"POST /inbound/mail HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n"
                    b"Content-Length: 10485760\r\n\r\n"
                )
                started = time.time()
                sock.settimeout(0.001)
                chunk = b"x" * 65536
                answered = None
                for _ in range(160):
                    try:
                        sock.sendall(chunk)
                    except OSError:
                        break
                    try:
                        if answered is None and sock.recv(12):
                            answered = time.time() - started
                    except (socket.timeout, BlockingIOError):
                        pass
                    except OSError:
                        break
                sock.settimeout(30)
                try:
                    if answered is None:
                        sock.recv(12)
                        answered = time.time() - started
                except OSError:
                    pass
                firsts.append(answered)
                sock.close()
            except OSError:
                pass

        threads = [threading.Thread(target=post) for _ in range(bodies)]
        for t in threads:
            t.start()
        peak = before
        while any(t.is_alive() for t in threads):
            peak = max(peak, serving.rss_mib())
            time.sleep(0.02)
        peak = max(peak, serving.rss_mib())
        result(
            "webhook_unauthenticated_10mib_bodies",
            f"{bodies} bodies: {before} -> {peak} MiB (+{peak - before})",
        )
    finally:
        serving.stop()


def probe_sigterm(gm, admin):
    serving = Serving(gm, admin, {})
    try:
        smtp = socket.create_connection(("127.0.0.1", serving.smtp), timeout=5)
        smtp.recv(200)
        smtp.sendall(b"EHLO client.example\r\n")
        smtp.recv(500)
        upload = socket.create_connection(("127.0.0.1", serving.http), timeout=5)
        upload.sendall(
            b"POST /gm/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 100000\r\n\r\n"
        )
        stop = threading.Event()

        def dribble():
            while not stop.is_set():
                try:
                    upload.sendall(b"name=aaaa&")
                except OSError:
                    return
                time.sleep(0.2)

        threading.Thread(target=dribble, daemon=True).start()
        time.sleep(0.5)
        serving.process.send_signal(signal.SIGTERM)
        signalled = time.time()
        time.sleep(0.3)
        try:
            smtp.sendall(b"MAIL FROM:<fred@example.org>\r\n")
            answer = smtp.recv(200).decode(errors="replace").strip()[:3] or "closed"
        except OSError:
            answer = "closed"
        result("sigterm_smtp_mail_answer", answer)
        try:
            serving.process.wait(timeout=90)
            result("sigterm_exit_after", f"{time.time() - signalled:.1f} s")
        except subprocess.TimeoutExpired:
            result("sigterm_exit_after", ">90 s (still running)")
        stop.set()
    finally:
        serving.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gm", required=True)
    parser.add_argument("--admin-url", default=os.environ.get("ADMIRALTY_TEST_DATABASE_URL"))
    parser.add_argument(
        "--only",
        default="header,body,flood,smtp-memory,smtp-noop,webhook,sigterm",
        help="comma-separated probes",
    )
    parser.add_argument("--flood", type=int, default=10000, help="connections in the flood")
    args = parser.parse_args()
    if not args.admin_url:
        raise SystemExit("--admin-url (or ADMIRALTY_TEST_DATABASE_URL) is needed")
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    probes = {
        "header": lambda: probe_header(args.gm, args.admin_url),
        "body": lambda: probe_body(args.gm, args.admin_url),
        "flood": lambda: probe_flood(args.gm, args.admin_url, args.flood),
        "smtp-memory": lambda: probe_smtp_memory(args.gm, args.admin_url, 150, 9),
        "smtp-noop": lambda: probe_smtp_noop(args.gm, args.admin_url),
        "webhook": lambda: probe_webhook(args.gm, args.admin_url, 50),
        "sigterm": lambda: probe_sigterm(args.gm, args.admin_url),
    }
    for name in args.only.split(","):
        print(f"== {name}", file=sys.stderr, flush=True)
        probes[name]()


if __name__ == "__main__":
    main()
