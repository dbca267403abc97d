#!/usr/bin/env python3
"""A proxy that spells every request path differently before passing it to dozor.

    spelling_proxy.py LISTEN_PORT UPSTREAM_PORT

Each path segment's first character is percent-encoded (`/api/v1/tables/R01` goes on as
`/%61pi/%761/%74ables/%5201`), which the router decodes to the same route; the query, method,
headers and body pass unchanged, and the answer comes back as dozor gave it. The fuzzer's
document-driven runs through it check that every operation answers an encoded spelling of its
path exactly as the document says it answers the path itself: a 401 without a key, never data.
HTTP clients normalise such paths themselves (Python's requests decodes encoded unreserved
characters), hence a proxy that writes the path byte for byte.
"""

import http.client
import http.server
import socketserver
import sys

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
}


def spelled(target: str) -> str:
    path, sep, query = target.partition("?")
    segments = path.split("/")
    out = []
    for segment in segments:
        if segment and segment[0].isascii() and segment[0].isalnum():
            segment = "%{:02X}{}".format(ord(segment[0]), segment[1:])
        out.append(segment)
    return "/".join(out) + sep + query


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream = 0

    def log_message(self, *_):
        pass

    def relay(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        connection = http.client.HTTPConnection("127.0.0.1", self.upstream, timeout=120)
        connection.putrequest(self.command, spelled(self.path), skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        answer = connection.getresponse()
        data = answer.read()
        self.send_response_only(answer.status, answer.reason)
        for name, value in answer.getheaders():
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        connection.close()

    def __getattr__(self, name):
        # Every method, those HTTP has no name for in this class (TRACE, say) too: dozor
        # answers them, not the proxy.
        if name.startswith("do_"):
            return self.relay
        raise AttributeError(name)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    listen, upstream = int(sys.argv[1]), int(sys.argv[2])
    assert spelled("/api/v1/tables/R01?x=1") == "/%61pi/%761/%74ables/%5201?x=1"
    Proxy.upstream = upstream
    Server(("127.0.0.1", listen), Proxy).serve_forever()


if __name__ == "__main__":
    main()
