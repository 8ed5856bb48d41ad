import json, sys, datetime
f, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3]   # times as HH:MM:SS UTC today
def ts(s):
    d = datetime.datetime.now(datetime.timezone.utc).date()
    return datetime.datetime.strptime(f"{d} {s}", "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()
lines = [json.loads(l) for l in open(f)]
a = min(lines, key=lambda l: abs(l["t"] - ts(t0))); b = min(lines, key=lambda l: abs(l["t"] - ts(t1)))
d = {k: b["agg"].get(k, 0) - a["agg"].get(k, 0) for k in b["agg"]}
tot = {}
for k, v in d.items(): tot[k.split("|")[0]] = tot.get(k.split("|")[0], 0) + v
print("totals", {k: round(v, 2) for k, v in tot.items()})
for k, v in sorted(d.items(), key=lambda x: -x[1])[:int(sys.argv[4]) if len(sys.argv) > 4 else 30]:
    if v > 0.05: print(f"{k:45} {v:8.2f}")
