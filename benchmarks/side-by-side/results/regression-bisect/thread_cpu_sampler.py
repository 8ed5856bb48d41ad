"""Every 2 s append cumulative per-thread-name CPU of nsc/trino JVMs to a JSONL file (dead threads remembered)."""
import os, re, sys, time, json, collections
out = open(sys.argv[1], "a")
seen = {}
TCK = os.sysconf("SC_CLK_TCK")
def role(pid):
    try: cmd = open(f"/proc/{pid}/cmdline","rb").read().replace(b"\0",b" ").decode()
    except Exception: return None
    if "java" not in cmd: return None
    m = re.search(r"/(storage-\d|metadata)\b", cmd)
    if m: return "storage" if m.group(1).startswith("storage") else "metadata"
    if "s3proxy" in cmd: return "s3proxy"
    if "trino" in cmd.lower(): return "trino"
    return None
while True:
    for pid in os.listdir("/proc"):
        if not pid.isdigit(): continue
        r = role(pid)
        if not r: continue
        try: tids = os.listdir(f"/proc/{pid}/task")
        except Exception: continue
        for tid in tids:
            try:
                s = open(f"/proc/{pid}/task/{tid}/stat").read()
                name = s[s.index("(")+1:s.rindex(")")]
                f = s[s.rindex(")")+2:].split()
                seen[(pid, tid)] = (r, re.sub(r"\d+", "#", name), (int(f[11]) + int(f[12])) / TCK)
            except Exception: pass
    agg = collections.defaultdict(float)
    for (r, n, c) in seen.values(): agg[r + "|" + n] += c
    out.write(json.dumps({"t": time.time(), "agg": agg}) + "\n"); out.flush()
    time.sleep(2)
