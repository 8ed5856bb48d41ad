"""The processes of the testbed and their configuration.

Inside the namespace (the storage side, behind the link): the nsc metadata service, three nsc
storage nodes and s3proxy on its file-system backend. On the host: one Trino 476 server with the
catalogs nsc, hive and iceberg. nsc's components start through bin/nsc-node, the launch code of
./nsc demo and the Docker images, so the benchmark runs the configuration users run.

Standard library only.
"""
import os
import secrets
import shutil
import subprocess

from cpusets import Shared
from testbed import Service, https_get, run, tcp_open, wait_until

STORAGE_NODES = 3
BUCKET = "nsc-bench"
S3_ACCESS_KEY = "nsc-bench"


class Ports:
    """Ports from a base, as ./nsc numbers them: metadata base/base+1, storage-N base+10N/+1."""

    def __init__(self, base, trino):
        self.metadata = base
        self.storage = [base + 10 * n for n in range(1, STORAGE_NODES + 1)]
        self.s3 = base + 130
        self.trino = trino


class Cluster:
    def __init__(self, settings, link, directory, placement=None):
        self.settings = settings
        self.link = link
        self.placement = placement or Shared()
        self.dir = directory
        self.tls_dir = os.path.join(directory, "tls")
        self.ports = Ports(settings.port_base, settings.trino_port)
        self.services = {}
        self.s3_secret = secrets.token_hex(16)
        self.keystore_password = secrets.token_hex(12)
        self.secure = not settings.plaintext
        self.s3_endpoint = f"{'https' if self.secure else 'http'}://{link.ns_address}:{self.ports.s3}"
        self.s3_data = os.path.join(directory, "s3proxy", "data")

    # --- helpers ---

    def _env(self, **extra):
        env = dict(os.environ)
        env.update({"NSC_HOME": self.settings.nsc_home, "NSC_TLS_DIR": self.tls_dir,
                    "NSC_INSECURE": "0" if self.secure else "1"})
        env.update({key: str(value) for key, value in extra.items()})
        return env

    def tool(self, *args, check=True):
        """nsc-tools, as ./nsc runs it (bin/nsc-node tool)."""
        command = [os.path.join(self.settings.nsc_home, "bin", "nsc-node"), "tool", *args]
        result = subprocess.run(command, env=self._env(), capture_output=True, text=True)
        if check and result.returncode != 0:
            raise RuntimeError(f"nsc {args[0]} failed: {result.stdout[-2000:]}{result.stderr[-2000:]}")
        return result.stdout

    def tls_args(self):
        if not self.secure:
            return ["--insecure"]
        return ["--certificate", os.path.join(self.tls_dir, "bench.pem"), "--key", os.path.join(self.tls_dir, "bench.key"),
                "--ca", os.path.join(self.tls_dir, "ca.pem")]

    def metadata_address(self):
        return f"{self.link.ns_address}:{self.ports.metadata}"

    def _health_url(self, port):
        return f"{'https' if self.secure else 'http'}://{self.link.ns_address}:{port + 1}/v1/health"

    def service_metrics(self, port):
        """A service's /v1/metrics (its HTTP port is port + 1) as name -> int. Crosses the link:
        only between measurements."""
        text = https_get(f"{'https' if self.secure else 'http'}://{self.link.ns_address}:{port + 1}/v1/metrics",
                         self.tls_dir if self.secure else None)
        result = {}
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if value.lstrip("-").isdigit():
                result[name] = int(value)
        return result

    # --- start ---

    def prepare_tls(self):
        """The cluster CA and the benchmark's own client certificate; with TLS, s3proxy gets a
        server certificate of the same CA, and Trino a trust store holding that CA, so the S3
        paths are encrypted as nsc's are (real S3 is HTTPS only)."""
        os.makedirs(self.tls_dir, exist_ok=True)
        if not self.secure:
            return
        self.tool("certs", "--dir", self.tls_dir, "client:bench", f"storage:s3proxy:{self.link.ns_address}")
        keystore = os.path.join(self.tls_dir, "s3proxy.p12")
        run(["openssl", "pkcs12", "-export", "-in", os.path.join(self.tls_dir, "s3proxy.pem"),
             "-inkey", os.path.join(self.tls_dir, "s3proxy.key"), "-name", "s3proxy", "-out", keystore,
             "-passout", f"pass:{self.keystore_password}"])
        truststore = os.path.join(self.tls_dir, "truststore.p12")
        if os.path.exists(truststore):
            os.remove(truststore)
        run(["keytool", "-importcert", "-noprompt", "-alias", "nsc-cluster-ca", "-file", os.path.join(self.tls_dir, "ca.pem"),
             "-keystore", truststore, "-storetype", "PKCS12", "-storepass", self.keystore_password])

    def _start(self, name, command, env, side):
        log = os.path.join(self.dir, name, "log", "launcher.log")
        if side == "storage":
            command = self.link.in_ns(command)
        # outermost, so the CPU set is in place before `ip netns exec` (which mounts a /sys of its
        # own, hiding the cgroup file systems) and inherited by the service's every thread
        command = self.placement.prefix("storage" if side == "storage" else "trino") + command
        service = Service(name, command, env, log, side)
        self.services[name] = service
        return service

    def start_storage_side(self):
        node = os.path.join(self.settings.nsc_home, "bin", "nsc-node")
        address = self.link.ns_address
        # the services bind the namespace's address; their certificates name it
        common = {"NSC_BIND_HOST": address, "NSC_ADVERTISED_HOST": address, "NSC_TLS_HOSTS": address,
                  "NSC_METADATA_ADDRESS": self.metadata_address()}
        metadata = self._start("metadata", [node, "run", "metadata", os.path.join(self.dir, "metadata")],
                               self._env(**common, NSC_GRPC_PORT=self.ports.metadata, NSC_HTTP_PORT=self.ports.metadata + 1), "storage")
        wait_until("the metadata service", lambda: https_get(self._health_url(self.ports.metadata), self.tls_dir if self.secure else None),
                   90, metadata)
        for number, port in enumerate(self.ports.storage, start=1):
            name = f"storage-{number}"
            self._start(name, [node, "run", "storage", os.path.join(self.dir, name)],
                        self._env(**common, NSC_NODE_ID=name, NSC_GRPC_PORT=port, NSC_HTTP_PORT=port + 1), "storage")
        self._start_s3proxy()
        for number, port in enumerate(self.ports.storage, start=1):
            service = self.services[f"storage-{number}"]
            wait_until(service.name, lambda port=port: https_get(self._health_url(port), self.tls_dir if self.secure else None), 90, service)
        wait_until("s3proxy", lambda: tcp_open(address, self.ports.s3), 90, self.services["s3proxy"])
        # a load right after must find every node live at the metadata service
        wait_until("the storage nodes' registration",
                   lambda: self.service_metrics(self.ports.metadata).get("live_nodes", 0) >= STORAGE_NODES, 60, metadata)

    def _start_s3proxy(self):
        directory = os.path.join(self.dir, "s3proxy")
        os.makedirs(self.s3_data, exist_ok=True)
        endpoint = f"{'s3proxy.secure-endpoint' if self.secure else 's3proxy.endpoint'}={self.s3_endpoint.replace(self.link.ns_address, '0.0.0.0')}"
        lines = [endpoint,
                 "s3proxy.authorization=aws-v2-or-v4",
                 f"s3proxy.identity={S3_ACCESS_KEY}",
                 f"s3proxy.credential={self.s3_secret}",
                 # without it Trino 476's ListObjectsV2 gets 501 (ENVIRONMENT.md)
                 "s3proxy.ignore-unknown-headers=true",
                 "jclouds.provider=filesystem",
                 f"jclouds.filesystem.basedir={self.s3_data}"]
        if self.secure:
            lines += [f"s3proxy.keystore-path={os.path.join(self.tls_dir, 's3proxy.p12')}",
                      f"s3proxy.keystore-password={self.keystore_password}"]
        config = os.path.join(directory, "s3proxy.conf")
        with open(config, "w") as file:
            file.write("\n".join(lines) + "\n")
        os.chmod(config, 0o600)
        # the same heap as each nsc service (bin/nsc-node gives them -Xmx1g)
        self._start("s3proxy", ["java", "-Xmx1g", "-XX:+ExitOnOutOfMemoryError", "-jar", self.settings.s3proxy_jar,
                                "--properties", config], self._env(), "storage")

    def write_catalogs(self):
        """Hive and Iceberg over the S3 server with Trino's native S3 file system; both keep their
        metastore (Hive's file metastore) on the host's disk, as a metastore service next to the
        coordinator would, while the tables' files (and Iceberg's metadata files) are in S3."""
        catalogs = os.path.join(self.dir, "catalogs")
        metastore_root = os.path.join(self.dir, "metastore-root")
        os.makedirs(catalogs, exist_ok=True)
        os.makedirs(os.path.join(metastore_root, "metastore"), exist_ok=True)
        file_systems = [
            "hive.metastore.catalog.dir=local:///metastore",
            "fs.native-local.enabled=true",
            f"local.location={metastore_root}",
            "fs.native-s3.enabled=true",
            f"s3.endpoint={self.s3_endpoint}",
            "s3.region=us-east-1",
            "s3.path-style-access=true",
            f"s3.aws-access-key={S3_ACCESS_KEY}",
            f"s3.aws-secret-key={self.s3_secret}",
        ]
        with open(os.path.join(catalogs, "hive.properties"), "w") as file:
            file.write("\n".join(["connector.name=hive", "hive.metastore=file"] + file_systems) + "\n")
        # Trino's Iceberg catalog on the file metastore is named "testing_file_metastore": the
        # same file metastore as Hive's (the hive_metastore type wants a Thrift service)
        with open(os.path.join(catalogs, "iceberg.properties"), "w") as file:
            file.write("\n".join(["connector.name=iceberg", "iceberg.catalog.type=testing_file_metastore", "iceberg.file-format=PARQUET"]
                                 + file_systems) + "\n")
        return catalogs

    def start_trino(self):
        catalogs = self.write_catalogs()
        jvm = []
        if self.secure:
            jvm = [f"-Djavax.net.ssl.trustStore={os.path.join(self.tls_dir, 'truststore.p12')}",
                   f"-Djavax.net.ssl.trustStorePassword={self.keystore_password}", "-Djavax.net.ssl.trustStoreType=PKCS12"]
        env = self._env(NSC_TRINO_SERVER=self.settings.trino_server, NSC_HTTP_PORT=self.ports.trino, NSC_TRINO_ROLE="coordinator",
                        NSC_TRINO_HEAP=self.settings.trino_heap, NSC_METADATA_ADDRESS=self.metadata_address(),
                        NSC_TRINO_PLUGIN_DIRS=",".join(self.settings.plugins), NSC_TRINO_CATALOG_DIR=catalogs,
                        NSC_TRINO_JVM_OPTS=" ".join(jvm), NSC_TRINO_NODE_ID="bench-coordinator",
                        NSC_CONNECTOR_PROPERTIES=",".join(self.settings.nsc_properties))
        node = os.path.join(self.settings.nsc_home, "bin", "nsc-node")
        trino = self._start("trino", [node, "run", "trino", os.path.join(self.dir, "trino")], env, "compute")
        wait_until("Trino", lambda: '"starting":false' in https_get(f"http://127.0.0.1:{self.ports.trino}/v1/info"), 240, trino, interval=1)

    def storage_side(self):
        return [service for service in self.services.values() if service.side == "storage"]

    def nsc_services(self):
        return [self.services[name] for name in ["metadata"] + [f"storage-{n}" for n in range(1, STORAGE_NODES + 1)]]

    def data_directories(self, path):
        """The directories holding a path's data files (for page-cache eviction)."""
        if path == "nsc":
            return [os.path.join(self.dir, f"storage-{n}") for n in range(1, STORAGE_NODES + 1)]
        return [self.s3_data]

    def stop(self):
        # Trino first (no new reads), then the storage side
        for name in ["trino"] + [name for name in self.services if name != "trino"]:
            service = self.services.get(name)
            if service is not None:
                try:
                    service.stop()
                except Exception as error:  # noqa: BLE001 - go on stopping the others
                    print(f"bench: stopping {name}: {error}", flush=True)

    def remove_data(self):
        """The copies of the data (nsc's replicas, the S3 objects); logs and configs stay."""
        for path in self.data_directories("nsc") + [self.s3_data]:
            for root, dirs, _ in os.walk(path):
                for name in dirs:
                    if name.startswith("disk"):
                        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
                break
        shutil.rmtree(self.s3_data, ignore_errors=True)
