"""The little of the S3 API the benchmark needs to put files into its S3 server: create a bucket,
put an object, list a prefix. Requests are signed with AWS Signature Version 4, as Trino's own S3
client signs them, so the server checks every request the same way for the loader and for Trino.

Standard library only.
"""
import datetime
import hashlib
import hmac
import os
import http.client
import ssl
import urllib.parse
import xml.etree.ElementTree as ElementTree

REGION = "us-east-1"


def _sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _hmac(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


class S3Client:
    """Path-style requests to one endpoint (http://host:port or https://host:port)."""

    def __init__(self, endpoint, access_key, secret_key, ca_file=None):
        url = urllib.parse.urlsplit(endpoint)
        self.secure = url.scheme == "https"
        self.host = url.hostname
        self.port = url.port or (443 if self.secure else 80)
        self.access_key = access_key
        self.secret_key = secret_key
        self.context = ssl.create_default_context(cafile=ca_file) if self.secure else None

    def _connection(self):
        if self.secure:
            return http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=600)
        return http.client.HTTPConnection(self.host, self.port, timeout=600)

    def _headers(self, method, path, query, payload_hash):
        now = datetime.datetime.now(datetime.timezone.utc)
        amz_date = now.strftime("%Y%m%dT%H%M%SZ")
        day = now.strftime("%Y%m%d")
        host = f"{self.host}:{self.port}"
        headers = {"host": host, "x-amz-content-sha256": payload_hash, "x-amz-date": amz_date}
        signed = ";".join(sorted(headers))
        canonical_query = "&".join(f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}"
                                   for k, v in sorted(query.items()))
        canonical = "\n".join([method, urllib.parse.quote(path, safe="/-_.~"), canonical_query,
                               "".join(f"{name}:{headers[name]}\n" for name in sorted(headers)), signed, payload_hash])
        scope = f"{day}/{REGION}/s3/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        key = _hmac(_hmac(_hmac(_hmac(("AWS4" + self.secret_key).encode(), day), REGION), "s3"), "aws4_request")
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        headers["Authorization"] = f"AWS4-HMAC-SHA256 Credential={self.access_key}/{scope}, SignedHeaders={signed}, Signature={signature}"
        return headers

    def _request(self, method, path, query=None, body=None, payload_hash=None, length=0):
        query = query or {}
        payload_hash = payload_hash or hashlib.sha256(b"").hexdigest()
        headers = self._headers(method, path, query, payload_hash)
        headers["Content-Length"] = str(length)
        target = urllib.parse.quote(path, safe="/-_.~")
        if query:
            target += "?" + urllib.parse.urlencode(sorted(query.items()), quote_via=urllib.parse.quote)
        connection = self._connection()
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            if response.status >= 300:
                raise RuntimeError(f"S3 {method} {path}: HTTP {response.status}: {data[:500]!r}")
            return data
        finally:
            connection.close()

    def create_bucket(self, bucket):
        self._request("PUT", f"/{bucket}")

    def put_file(self, bucket, key, path):
        """One PUT of the whole file (the benchmark's files are far below S3's 5 GB limit)."""
        size = os.path.getsize(path)
        with open(path, "rb") as body:
            self._request("PUT", f"/{bucket}/{key}", body=body, payload_hash=_sha256_file(path), length=size)

    def list_objects(self, bucket, prefix):
        """(key, size) of every object under the prefix."""
        result, token = [], None
        while True:
            query = {"list-type": "2", "prefix": prefix}
            if token:
                query["continuation-token"] = token
            root = ElementTree.fromstring(self._request("GET", f"/{bucket}", query))
            namespace = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
            for item in root.iter(namespace + "Contents"):
                result.append((item.find(namespace + "Key").text, int(item.find(namespace + "Size").text)))
            token = root.findtext(namespace + "NextContinuationToken")
            if root.findtext(namespace + "IsTruncated") != "true" or not token:
                return result
