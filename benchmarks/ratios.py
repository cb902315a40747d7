#!/usr/bin/env python3
"""Reads JMH's JSON result and prints `ratio NAME VALUE` for each raw*/volrep* pair of benchmarks.

VALUE is volrep's time per operation divided by the raw baseline's, both from the same run. NAME is the class
(without "Benchmark"), the method name after the raw/volrep prefix, and the parameter values, lower-case and
joined by dashes, e.g. client-blocking-unix.
"""
import json
import re
import sys


def main(path):
    with open(path) as f:
        results = json.load(f)
    scores = {}
    units = {}
    for r in results:
        cls, method = r["benchmark"].rsplit(".", 2)[-2:]
        m = re.match(r"(raw|volrep)(.*)", method)
        if not m:
            continue
        params = tuple(v for _, v in sorted((r.get("params") or {}).items()))
        name = "-".join([cls.replace("Benchmark", "").lower()] + ([m.group(2).lower()] if m.group(2) else [])
                        + [p.lower() for p in params])
        scores.setdefault(name, {})[m.group(1)] = r["primaryMetric"]["score"]
        units[name] = r["primaryMetric"]["scoreUnit"]
    for name, pair in sorted(scores.items()):
        if "raw" in pair and "volrep" in pair:
            print("detail %s raw %.3f %s volrep %.3f %s" % (name, pair["raw"], units[name], pair["volrep"],
                                                           units[name]))
    for name, pair in sorted(scores.items()):
        if "raw" in pair and "volrep" in pair:
            print("ratio %s %.3f" % (name, pair["volrep"] / pair["raw"]))


if __name__ == "__main__":
    main(sys.argv[1])
