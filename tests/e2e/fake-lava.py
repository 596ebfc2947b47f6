#!/usr/bin/env python3
# A LAVA REST v0.2 server that answers badly on purpose, for t0156: python3 fake-lava.py
# PORTFILE MODE. It binds a free port on 127.0.0.1, writes it to PORTFILE, and logs each
# request (method, path, Authorization header) to PORTFILE.requests.
#   whoami500  every whoami is a 500, as a lab whose database is down
#   lognul     job 7 Finished; its log holds a NUL byte before the marker's line
#   logs500    job 7 Finished; every log request is a 500
#   lognonl    job 7 Finished; its last line, the marker's, has no newline
# Logs are read as LAVA reads them: ?start=L[&end=M], 0-based lines, end exclusive.
import http.server
import os
import socketserver
import sys

PORTFILE, MODE = sys.argv[1], sys.argv[2]


def line(msg):
    return '- {"dt": "2026-11-29T23:22:46.0", "lvl": "target", "msg": "%s"}\n' % msg


LOG = {
    "lognul": line("[    0.000000] Linux version 6.1.0") +
    '- {"dt": "2026-11-29T23:22:47.0", "lvl": "target", "msg": "a\0b"}\n' +
    line("bootgate: userspace reached"),
    "lognonl": line("[    0.000000] Linux version 6.1.0") +
    line("bootgate: userspace reached").rstrip("\n"),
}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, code, body):
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def route(self):
        with open(PORTFILE + ".requests", "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path,
                                    self.headers.get("Authorization")))
        p = self.path
        if p == "/api/v0.2/system/whoami/":
            if MODE == "whoami500":
                return self.answer(500, "database down")
            return self.answer(200, '{"user": "admin"}')
        if p == "/api/v0.2/jobs/" and self.command == "POST":
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            return self.answer(201, '{"job_ids": [7]}')
        if p == "/api/v0.2/jobs/7/":
            return self.answer(200, '{"state": "Finished", "health": "Complete"}')
        if p.startswith("/api/v0.2/jobs/7/logs/?start="):
            if MODE == "logs500":
                return self.answer(500, "log storage failed")
            q = dict(kv.split("=") for kv in p.split("?", 1)[1].split("&"))
            start = int(q["start"])
            end = int(q["end"]) if "end" in q else None
            rest = LOG[MODE].splitlines(True)[start:end]
            if not rest:
                return self.answer(404, '{"detail": "Not found."}')
            return self.answer(200, "".join(rest))
        return self.answer(404, '{"detail": "Not found."}')

    do_GET = do_POST = route


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
