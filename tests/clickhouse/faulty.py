#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A misbehaving HTTP peer for the ClickHouse exporter's failure tests.

  faulty.py PORTFILE LOG answer STATUS BODY
      answer every request with HTTP STATUS and BODY
  faulty.py PORTFILE LOG cut UPSTREAM_PORT TABLE BYTES TIMES
      a proxy to ClickHouse on 127.0.0.1:UPSTREAM_PORT that, for the first
      TIMES inserts into TABLE, passes the request with only the first
      BYTES of its body and then closes both connections (the server sees
      the body end early; the client gets no answer); everything else
      passes whole

Listens on 127.0.0.1, a free port written to PORTFILE once listening.
Appends one line per request to LOG: "<action> <body bytes passed> <query>".
Runs until killed.
"""
import os
import socket
import sys
import threading
import urllib.parse

lock = threading.Lock()
cuts_left = 0


def log(path, line):
    with lock, open(path, "a") as f:
        f.write(line + "\n")


def read_request(conn):
    """Head (bytes) and body of one request, or None at EOF."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(1 << 20)
        if not chunk:
            break
        body += chunk
    return head, body


def query_of(head):
    target = head.split(b"\r\n")[0].split(b" ")[1].decode()
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query).get("query", [""])[0]
    return q


def answer(conn, args, logpath):
    status, body = int(args[0]), args[1].encode()
    while True:
        req = read_request(conn)
        if req is None:
            return
        head, data = req
        q = query_of(head) or data.decode(errors="replace")
        log(logpath, "answer %d %s" % (len(data), " ".join(q.split())[:80]))
        conn.sendall(b"HTTP/1.1 %d Error\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n"
                     % (status, len(body)) + body)


def proxy(conn, args, logpath):
    global cuts_left
    upstream, table, nbytes = int(args[0]), args[1], int(args[2])
    req = read_request(conn)
    if req is None:
        return
    head, data = req
    q = query_of(head)
    lines = [l for l in head.split(b"\r\n") if not l.lower().startswith(b"connection:")]
    head = b"\r\n".join(lines + [b"Connection: close"])
    up = socket.create_connection(("127.0.0.1", upstream))
    cut = False
    with lock:
        if q.startswith("INSERT INTO %s " % table) and cuts_left > 0:
            cuts_left -= 1
            cut = True
    if cut:
        up.sendall(head + b"\r\n\r\n" + data[:nbytes])
        # drop both sides at once: the server reads on to the early end of
        # the body while the client already sees the connection gone
        up.shutdown(socket.SHUT_WR)
        up.close()
        log(logpath, "cut %d %s" % (min(nbytes, len(data)), " ".join(q.split())[:80]))
        return
    up.sendall(head + b"\r\n\r\n" + data)
    while True:
        chunk = up.recv(65536)
        if not chunk:
            break
        conn.sendall(chunk)
    up.close()
    log(logpath, "pass %d %s" % (len(data), " ".join(q.split())[:80] or
                                  " ".join(data.decode(errors="replace").split())[:80]))


def main():
    global cuts_left
    portfile, logpath, mode, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if mode == "cut":
        cuts_left = int(args[3])
    handler = {"answer": answer, "cut": proxy}[mode]
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)

    def serve(conn):
        try:
            handler(conn, args, logpath)
        except (ConnectionError, OSError):
            pass
        finally:
            conn.close()

    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
