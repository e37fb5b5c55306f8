"""The engine's tests: cards, evaluation against the reference and every hand, odds and
partial odds against brute force, the caches under threads, the fast paths."""
