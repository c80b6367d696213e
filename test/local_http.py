"""An HTTP server on 127.0.0.1 serving a folder, for the tests of downloads (no network):
its ``url``, the request paths it saw (``requests``), ``close()``."""
import functools
import http.server
import threading


class LocalServer:
    """Serves ``folder`` at ``url`` (127.0.0.1, a free port) from a daemon thread."""

    def __init__(self, folder):
        self.requests = []
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                server.requests.append(self.path)
        self.httpd = http.server.ThreadingHTTPServer(
            ('127.0.0.1', 0), functools.partial(Handler, directory=str(folder)))
        self.url = f'http://127.0.0.1:{self.httpd.server_address[1]}'
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
