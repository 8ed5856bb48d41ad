"""The counters an nsc service publishes on /v1/metrics, read as ./nsc reads them."""

import os
import ssl
import urllib.request


def service_metrics(nsc_var, http_port, timeout=10):
    """name -> value of the service whose HTTP endpoint is on 127.0.0.1:http_port.

    The services take only certificates of the cluster CA: this uses the client certificate
    ./nsc made in nsc_var; a cluster started with NSC_INSECURE=1 has none and serves plain HTTP.
    """
    tls = os.path.join(nsc_var, "cluster", "tls")
    if os.path.exists(os.path.join(tls, "nsc-cli.pem")):
        context = ssl.create_default_context(cafile=os.path.join(tls, "ca.pem"))
        context.load_cert_chain(os.path.join(tls, "nsc-cli.pem"), os.path.join(tls, "nsc-cli.key"))
        url = f"https://127.0.0.1:{http_port}/v1/metrics"
    else:
        context = None
        url = f"http://127.0.0.1:{http_port}/v1/metrics"
    with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
        lines = response.read().decode().splitlines()
    return {name: int(value) for name, _, value in (line.partition(" ") for line in lines) if value.lstrip("-").isdigit()}


def service_http_port(component, port_base=7070):
    """The HTTP port ./nsc gives a service: metadata-N at base + 2(N-1) + 1, storage-N at base + 10N + 1."""
    number = int(component.split("-")[1])
    if component.startswith("metadata-"):
        return port_base + 2 * (number - 1) + 1
    return port_base + 10 * number + 1


def component_pid(nsc_var, component):
    """The pid ./nsc recorded for a component of the cluster in nsc_var, or None."""
    try:
        with open(os.path.join(nsc_var, "cluster", "state", f"{component}.pid")) as file:
            return int(file.read().strip())
    except (OSError, ValueError):
        return None
