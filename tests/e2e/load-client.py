#!/usr/bin/env python3
# Clients of the daemon under load, for t0185: python3 load-client.py MODE ARGS...
#
#   triggers SOCK PORT SECRETFILE WORK COUNT SECONDS TREE...
#       COUNT triggers spread over SECONDS, every other one over the Unix socket
#       (`bootgate trigger`, $BOOTGATE) and the others as signed pushes to the webhook
#       on 127.0.0.1:PORT, the trees in turn, 8 at most at once; meanwhile, during the
#       first 90 % of the time, an empty commit is pushed every 0.5 s to a tree's served
#       repository from its clone WORK/TREE, the trees in turn. Prints one line per
#       outcome, "socket ok N", "webhook 202 N" (anything else is counted by its answer),
#       and each tree's last pushed commit as "tip TREE REV".
#   crowd PORT SECRETFILE COUNT TREE
#       COUNT signed pushes to TREE, each on a connection of its own, all opened at
#       once from 127.0.0.10, .11, ... (8 a source address); prints "STATUS N" per answer,
#       "closed N" for connections closed unanswered.
#   burst SOCK PORT SECRETFILE COUNT TREE1 TREE2
#       holds the daemon's loop (20 clients on the Unix socket that send nothing, 2 s
#       each), meanwhile sends COUNT signed pushes naming a commit to TREE1 (more than
#       the loop's pipe holds), then 10 to TREE2, and lets the socket clients go; prints
#       "TREE STATUS N" per answer.
#   hostile PORT SRC COUNT KIND SECONDS
#       COUNT connections from the address SRC that misbehave, KIND one of
#         loris    the request line and headers, one byte a second, never ending
#         trickle  a whole head with Content-Length 4096, then a body byte a second
#         chunked  a chunked body, a chunk a second, never ending
#         huge     Content-Length 10^15, then a body as fast as the server reads it
#         endless  a chunked body sent as fast as the server reads it, never ending
#       each watched for SECONDS at most; prints "STATUS N" or "closed N" per outcome
#       and "open N" for those still open at the end, "quick N" for the outcomes within
#       2 s, and "slowest S" (seconds to the last outcome).
#   flood PORT COUNT
#       from 127.0.0.1: holds 16 connections (the webhook's limit for one address), opens
#       COUNT more, each closed by the server, lets the 16 go, then sends COUNT unsigned
#       pushes; prints "closed N" and "STATUS N" per outcome.
#   pushes PORT SECRETFILE COUNT TREE
#       COUNT signed pushes to TREE one after another, each on a connection of its own;
#       prints "STATUS N" per answer, "refused N" for a connection refused or cut.
import asyncio
import concurrent.futures
import hashlib
import hmac
import http.client
import os
import socket
import subprocess
import sys
import threading
import time


def secret_of(path):
    with open(path, "rb") as f:
        return f.readline().rstrip(b"\r\n")


def signed(secret, body):
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def push_body(tree, rev):
    return ('{"ref": "refs/heads/for-next", "after": "%s", "tree": "%s"}'
            % (rev, tree)).encode()


def count(tally, key):
    tally[key] = tally.get(key, 0) + 1


def commit_push(repo, msg):
    subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@localhost",
                    "commit", "-q", "--allow-empty", "-m", msg], check=True)
    subprocess.run(["git", "-C", repo, "push", "-q", "origin", "HEAD:refs/heads/for-next"],
                   check=True)
    return subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def triggers(sock, port, secret_file, work, n, seconds, trees):
    secret = secret_of(secret_file)
    bootgate = os.environ["BOOTGATE"]
    tally, tips = {}, {}
    lock = threading.Lock()
    local = threading.local()
    pushing = threading.Event()

    # new tips all along the first 90 % of the time, none after: the last triggers of
    # each tree come after its last push, so its final tip must be fetched
    pushes = [0]

    def pusher():
        k = 0
        while not pushing.wait(0.5):
            tree = trees[k % len(trees)]
            tip = commit_push(os.path.join(work, tree), "load %d" % k)
            with lock:
                tips[tree] = tip
            k += 1
            pushes[0] = k

    def one(i):
        tree = trees[i % len(trees)]
        if i % 2 == 0:
            r = subprocess.run([bootgate, "trigger", "--socket", sock, tree],
                               capture_output=True, text=True)
            ok = r.returncode == 0 and r.stdout.startswith("ok")
            with lock:
                count(tally, "socket ok" if ok else "socket failed")
            if not ok:
                sys.stderr.write("trigger %s: %s%s" % (tree, r.stdout, r.stderr))
            return
        with lock:
            body = push_body(tree, tips.get(tree, "0" * 40))
        for attempt in (1, 2):
            try:
                if getattr(local, "hook", None) is None:
                    local.hook = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                local.hook.request("POST", "/hook/" + tree, body,
                                   {"X-Hub-Signature-256": signed(secret, body),
                                    "Content-Type": "application/json"})
                resp = local.hook.getresponse()
                resp.read()
                key = "webhook %d" % resp.status
                break
            except (OSError, http.client.HTTPException):
                # a kept connection the server closed: once more on a new one
                local.hook = None
                key = "webhook closed"
        with lock:
            count(tally, key)

    start = time.monotonic()
    thread = threading.Thread(target=pusher)
    thread.start()
    # at an even pace, the i-th at i * seconds / n, each on a worker of its own: a slow
    # answer delays no other trigger
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        jobs = []
        for i in range(n):
            if i >= n * 0.9 and not pushing.is_set():
                pushing.set()
                thread.join()
            delay = start + i * seconds / n - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            jobs.append(pool.submit(one, i))
        for j in jobs:
            j.result()
    for key in sorted(tally):
        print(key, tally[key])
    for tree in sorted(tips):
        print("tip", tree, tips[tree])
    print("pushes", pushes[0])
    print("seconds %.1f" % (time.monotonic() - start))


def burst(sock, port, secret_file, n, tree1, tree2):
    secret = secret_of(secret_file)
    tally = {}
    lock = threading.Lock()
    silent = []
    for _ in range(20):
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        silent.append(s)

    def pushes(tree, k):
        hook = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = push_body(tree, "0123456789abcdef" * 2 + "01234567")
        for _ in range(k):
            hook.request("POST", "/hook/" + tree, body,
                         {"X-Hub-Signature-256": signed(secret, body)})
            resp = hook.getresponse()
            resp.read()
            with lock:
                count(tally, "%s %d" % (tree, resp.status))

    threads = [threading.Thread(target=pushes, args=(tree1, n // 5)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pushes(tree2, 10)
    for s in silent:
        s.close()
    for key in sorted(tally):
        print(key, tally[key])


async def one_push(port, src, secret, tree, tally):
    body = push_body(tree, "1" * 40)
    head = ("POST /hook/%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            "X-Hub-Signature-256: %s\r\nContent-Length: %d\r\n\r\n"
            % (tree, signed(secret, body), len(body))).encode()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       local_addr=(src, 0))
        writer.write(head + body)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 60)
        writer.close()
    except (OSError, asyncio.TimeoutError):
        line = b""
    parts = line.split()
    count(tally, parts[1].decode() if len(parts) > 1 else "closed")


async def crowd(port, secret_file, n, tree):
    secret = secret_of(secret_file)
    tally = {}
    await asyncio.gather(*(one_push(port, "127.0.0.%d" % (10 + i // 8), secret, tree, tally)
                           for i in range(n)))
    for key in sorted(tally):
        print(key, tally[key])


async def misbehave(port, src, kind, tally, start, outcomes):
    head = "POST /hook/x HTTP/1.1\r\nHost: x\r\nX-Hub-Signature-256: sha256=%s\r\n" % ("0" * 64)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       local_addr=(src, 0))
    except OSError:
        count(tally, "refused")
        return

    async def feed():
        if kind == "loris":
            for b in (head + "X-Pad: " + "a" * 10000).encode():
                writer.write(bytes([b]))
                await writer.drain()
                await asyncio.sleep(1)
        elif kind == "trickle":
            writer.write((head + "Content-Length: 4096\r\n\r\n").encode())
            while True:
                await asyncio.sleep(1)
                writer.write(b"{")
                await writer.drain()
        elif kind == "chunked":
            writer.write((head + "Transfer-Encoding: chunked\r\n\r\n").encode())
            while True:
                await asyncio.sleep(1)
                writer.write(b"1\r\n{\r\n")
                await writer.drain()
        elif kind == "huge":
            writer.write((head + "Content-Length: 1000000000000000\r\n\r\n").encode())
            while True:
                writer.write(b"{" * 65536)
                await writer.drain()
        elif kind == "endless":
            writer.write((head + "Transfer-Encoding: chunked\r\n\r\n").encode())
            while True:
                writer.write(b"10000\r\n" + b"{" * 65536 + b"\r\n")
                await writer.drain()

    feeder = asyncio.ensure_future(feed())
    try:
        line = await reader.readline()
    except OSError:
        line = b""
    feeder.cancel()
    try:
        await feeder
    except (asyncio.CancelledError, OSError):
        pass
    writer.close()
    parts = line.split()
    count(tally, parts[1].decode() if len(parts) > 1 else "closed")
    outcomes.append(time.monotonic() - start)


async def hostile(port, src, n, kind, seconds):
    tally, outcomes = {}, []
    start = time.monotonic()
    tasks = [asyncio.ensure_future(misbehave(port, src, kind, tally, start, outcomes))
             for _ in range(n)]
    done, pending = await asyncio.wait(tasks, timeout=seconds)
    for t in pending:
        t.cancel()
    if pending:
        tally["open"] = len(pending)
    for key in sorted(tally):
        print(key, tally[key])
    print("quick %d" % len([t for t in outcomes if t < 2]))
    print("slowest %.0f" % max(outcomes + [0]))


def flood(port, n):
    tally = {}
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.settimeout(10)
        try:
            count(tally, "closed" if not s.recv(1) else "answered")
        except OSError:
            count(tally, "closed")
        s.close()
    for s in held:
        s.close()
    # until the server has seen them go, a new connection is still over the limit
    time.sleep(1)
    for _ in range(n):
        hook = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        # no body: the 401 comes with the headers, and a body left unread would be reset
        hook.request("POST", "/hook/load-a", body=b"")
        count(tally, str(hook.getresponse().status))
        hook.close()
    for key in sorted(tally):
        print(key, tally[key])


def pushes(port, secret_file, n, tree):
    secret = secret_of(secret_file)
    tally = {}
    for i in range(n):
        body = push_body(tree, "%040x" % (i + 1))
        hook = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            hook.request("POST", "/hook/" + tree, body=body,
                         headers={"X-Hub-Signature-256": signed(secret, body)})
            count(tally, str(hook.getresponse().status))
        except (OSError, http.client.HTTPException):
            count(tally, "refused")
        hook.close()
        time.sleep(0.005)
    for key in sorted(tally):
        print(key, tally[key])


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "triggers":
        triggers(args[0], int(args[1]), args[2], args[3], int(args[4]), float(args[5]),
                 args[6:])
    elif mode == "burst":
        burst(args[0], int(args[1]), args[2], int(args[3]), args[4], args[5])
    elif mode == "crowd":
        asyncio.run(crowd(int(args[0]), args[1], int(args[2]), args[3]))
    elif mode == "hostile":
        asyncio.run(hostile(int(args[0]), args[1], int(args[2]), args[3], float(args[4])))
    elif mode == "flood":
        flood(int(args[0]), int(args[1]))
    elif mode == "pushes":
        pushes(int(args[0]), args[1], int(args[2]), args[3])
    else:
        sys.exit("load-client.py: no mode '%s'" % mode)


if __name__ == "__main__":
    main()
