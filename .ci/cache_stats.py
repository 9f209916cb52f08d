"""One line of sccache's statistics (its JSON on stdin): what it was asked, hit and missed."""

import json
import sys

stats = json.load(sys.stdin)["stats"]
hits = stats["cache_hits"]["counts"]
misses = stats["cache_misses"]["counts"]
hit, miss = sum(hits.values()), sum(misses.values())
rate = 100 * hit / (hit + miss) if hit + miss else 0.0
per_language = ", ".join(f"{lang} {hits.get(lang, 0)} of {hits.get(lang, 0) + misses.get(lang, 0)}"
                         for lang in sorted(set(hits) | set(misses)))
not_cached = ", ".join(f"{why}: {n}" for why, n in sorted(stats["not_cached"].items(), key=lambda kv: -kv[1]))
print(f"sccache: {stats['compile_requests']} compilations asked for; {hit} hits, {miss} misses: "
      f"hit rate {rate:.0f} % ({per_language or 'none'}); {stats['requests_not_cacheable']} not cacheable"
      f"{' (' + not_cached + ')' if not_cached else ''}; {stats['compile_fails']} failed to compile")
