# Independent check of the shipped header table: every request/response
# version of messages/schemas (the extract, which states headerVersions)
# against the header Kafka's generator derived before KAFKA-20923
# (flexible request -> v2, ControlledShutdown v0 -> v0, other requests v1;
# flexible response -> v1 except ApiVersions, others v0), the flexibility
# taken from Apache's own schema files in ../shared (newest set holding
# the version first). Run from the repo root, with ../shared beside it:
# python3 interop/scripts/header_versions_check.py
import json, re, glob, os
def strip(t): return re.sub(r'^\s*//.*$', '', t, flags=re.M)
def rng(s):
    s = s.strip()
    if s == 'none': return None
    if s.endswith('+'): return (int(s[:-1]), 10**6)
    if '-' in s: a, b = s.split('-'); return (int(a), int(b))
    return (int(s), int(s))
def at(hv, v):
    for k, h in hv.items():
        r = rng(k)
        if r[0] <= v <= r[1]: return int(h)
    raise KeyError(v)
def derived(typ, key, v, flex):
    if typ == 'request':
        return 2 if flex else (0 if key == 7 and v == 0 else 1)
    return 0 if key == 18 else (1 if flex else 0)
sets = ['../shared/kafka-schemas-2026', '../shared/kafka-schemas', '../shared/kafka-schemas-legacy']
agree = dis = 0; per = {'request': 0, 'response': 0}
for f in sorted(glob.glob('messages/schemas/*.json')):
    s = json.loads(strip(open(f).read()))
    if s.get('type') not in ('request', 'response'): continue
    vr = rng(s['validVersions'])
    for v in range(vr[0], vr[1] + 1):
        src = None
        for d in sets:
            p = os.path.join(d, os.path.basename(f))
            if os.path.exists(p):
                a = json.loads(strip(open(p).read())); r = rng(a['validVersions'])
                if r and r[0] <= v <= r[1]: src = a; break
        fr = rng(src.get('flexibleVersions', 'none'))
        want = derived(s['type'], s['apiKey'], v, fr is not None and fr[0] <= v <= fr[1])
        got = at(s['headerVersions'], v); per[s['type']] += 1
        if got == want: agree += 1
        else: dis += 1; print('DISAGREE', f, v, got, want)
print('agree', agree, 'disagree', dis, per)
