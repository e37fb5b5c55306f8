// A typed TypeScript client of the service: types generated from openapi.yaml by
// openapi-typescript (generated/gnau-scoring.d.ts), calls made with openapi-fetch.
// `tsc --noEmit -p clients/ts` type-checks it; tests/test_ts_client.py compiles it and runs
// it with node against a live gunicorn:  node clients/ts/build/client-test.js BASE_URL
// Every check asserts a real value the service must give (RULES.md section 8 examples); the
// last line printed is a JSON summary, {"ok": true, "checks": N, "operations": [...]}.
// Receipts (RULES.md 9.2) are verified as any client would: the signature with the `jose`
// package against the JWK Set the service publishes, the hashes with `canonicalize` (RFC 8785)
// and node's SHA-256; a tampered answer or request fails.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";

import canonicalize from "canonicalize";
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from "jose";
import createClient from "openapi-fetch";

import type { components, paths } from "./generated/gnau-scoring.js";

type Card = components["schemas"]["Card"];
type EvaluationFields = components["schemas"]["EvaluationFields"];
type Problem = components["schemas"]["Problem"];

const base = process.argv[2];
if (!base) {
  console.error("usage: node client-test.js BASE_URL");
  process.exit(2);
}

const client = createClient<paths>({ baseUrl: base });
let checks = 0;
const operations = new Set<string>();

function check(condition: boolean, message: string): void {
  assert.ok(condition, message);
  checks += 1;
}

function same<T>(actual: T, expected: T, message: string): void {
  assert.deepStrictEqual(actual, expected, message);
  checks += 1;
}

function pointers(problem: Problem | undefined): Record<string, string> {
  assert.ok(problem, "a problem body");
  return Object.fromEntries((problem.errors ?? []).map((e) => [e.pointer ?? `?${e.parameter ?? ""}`, e.detail]));
}

// Every integer the service returns must be exact in JavaScript (openapi.yaml, I-JSON).
function safeIntegers(value: unknown, where = ""): void {
  if (typeof value === "number" && Number.isInteger(value)) {
    check(Number.isSafeInteger(value), `${where} = ${value} is not a safe integer`);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => safeIntegers(item, `${where}/${i}`));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) safeIntegers(item, `${where}/${key}`);
  }
}

async function evaluations(): Promise<void> {
  operations.add("evaluateHand");
  const hand: Card[] = ["10S", "7H", "3D", "KC", "7D"];
  const { data, response } = await client.POST("/v1/evaluations", {
    body: { hand },
    params: { header: { "X-Request-ID": "ts-client-1" } },
  });
  same(response.status, 200, "evaluateHand status");
  same(response.headers.get("X-Request-ID"), "ts-client-1", "the request id is echoed");
  assert.ok(data);
  same([data.profile, data.label, data.category, data.payout], ["standard", "Single-Ox 0", "single_ox", 1],
    "10S 7H 3D KC 7D: the 3 counts as 6 (RULES.md section 8)");
  same(data.ox, { cards: ["7H", "3D", "7D"], points: [7, 6, 7] }, "ox cards and points");
  same(data.power, { cards: ["10S", "KC"], points: [10, 10] }, "power cards and points");
  same([data.nenku, data.suited], [false, false], "flags");
  check(data.rules_digest.startsWith("sha256:"), "rules_digest");

  const noSwap = await client.POST("/v1/evaluations", { body: { hand, rules: { three_six_swap: false } } });
  same(noSwap.data?.label, "Single-Ox 7", "without the 3/6 swap");
  same(noSwap.data?.rules?.three_six_swap, false, "the effective rules are echoed");

  const bomb = await client.POST("/v1/evaluations", {
    params: { query: { profile: "niu-niu" } },
    body: { hand: ["JS", "JH", "JC", "JD", "QH"] },
  });
  same([bomb.data?.profile, bomb.data?.label, bomb.data?.payout, bomb.data?.ox], ["niu-niu", "Bomb J", 5, null],
    "a Niu Niu bomb has no ox");
  same(bomb.data?.label_key, "bomb_j", "the label's stable key");

  // A poker shape under niu-niu-plus, its label in Simplified Chinese (issue 24).
  const shape = await client.POST("/v1/evaluations", {
    params: { query: { profile: "niu-niu-plus", lang: "zh-Hans" } },
    body: { hand: ["7S", "7H", "7D", "9C", "9H"] },
  });
  same([shape.data?.category, shape.data?.label, shape.data?.label_key, shape.data?.payout],
    ["full_house", "葫芦牛 7", "full_house_7", 6], "a full house in Chinese");
  same(shape.response.headers.get("Content-Language"), "zh-Hans", "the answer names its language");

  // Deliberately invalid: the types forbid "1S" and decks 9 is over the schema's maximum.
  const bad = await client.POST("/v1/evaluations", { body: { hand: ["10S", "1S" as Card, "3D", "KC", "7D"], decks: 9 } });
  same(bad.response.status, 400, "a bad card and bad decks");
  same(bad.response.headers.get("Content-Type"), "application/problem+json", "problem media type");
  same(bad.error?.type, "/problems/validation-error", "problem type");
  const details = pointers(bad.error);
  same(Object.keys(details).sort(), ["/decks", "/hand/1"], "every problem, by pointer");
  check(details["/hand/1"]?.includes("'1S' is not a card") ?? false, "the card problem names the card");
  same(details["/decks"], "must be an integer from 1 to 8", "the decks problem");

  // Deliberately outside the contract (the types forbid it): listProfiles takes no query parameter.
  const unknownQuery = await client.GET("/v1/profiles", { params: { query: { x: "1" } as never } });
  same(unknownQuery.response.status, 400, "an unknown query parameter on an API operation");
  same(unknownQuery.error?.errors?.[0]?.parameter, "x", "named by parameter");
}

async function batch(): Promise<void> {
  operations.add("evaluateHands");
  const { data } = await client.POST("/v1/evaluations/batch", {
    body: { hands: [["10S", "9H", "8D", "4C", "4H"], ["3s", "6♥", "8D", "4C", "8h"]] },
  });
  same(data?.evaluations.map((e: EvaluationFields) => e.label), ["No Ox", "Double-Ox 8"], "batch labels");
  same(data?.evaluations[1]?.hand, ["3S", "6H", "8D", "4C", "8H"], "canonical cards");
  // A sparse fieldset: only the members asked for, in the schema's order.
  const sparse = await client.POST("/v1/evaluations/batch", {
    params: { query: { fields: "score,label" } },
    body: { hands: [["10S", "9H", "8D", "4C", "4H"], ["3s", "6♥", "8D", "4C", "8h"]] },
  });
  same(sparse.data?.evaluations.map((e: EvaluationFields) => Object.keys(e)), [["label", "score"], ["label", "score"]],
       "sparse members");
  same(sparse.data?.evaluations.map((e: EvaluationFields) => e.label), ["No Ox", "Double-Ox 8"], "sparse labels");
}

async function ranking(): Promise<void> {
  operations.add("rankHands");
  const { data } = await client.POST("/v1/rankings", {
    body: {
      hands: [
        { id: "ann", hand: ["10S", "9H", "8D", "4C", "4H"] },
        { id: "bo", hand: ["JS", "QH", "KD", "JC", "QD"] },
        { hand: ["10S", "9H", "AD", "7C", "4H"] },
      ],
    },
  });
  assert.ok(data);
  same(data.ranking.map((r) => [r.id, r.index, r.position, r.evaluation.label]), [
    ["bo", 1, 1, "Five Dukes"], [null, 2, 2, "Single-Ox 1"], ["ann", 0, 3, "No Ox"],
  ], "strongest first, competition positions, ids echoed");
}

async function settlement(): Promise<void> {
  operations.add("settleRound");
  const { data, response } = await client.POST("/v1/settlements", {
    body: {
      dealer: { hand: ["3S", "6H", "8D", "4C", "8H"] },
      players: [
        { id: "seat-1", hand: ["10H", "9S", "8S", "4D", "4H"], stake: 250 },
        { id: "seat-2", hand: ["JS", "QH", "KD", "JC", "QD"], stake: 100 },
      ],
    },
  });
  same(response.status, 200, "settleRound status");
  assert.ok(data);
  same(data.dealer.evaluation.label, "Double-Ox 8", "the dealer's hand");
  same(data.players.map((p) => [p.id, p.evaluation.label, p.stake, p.outcome, p.amount]), [
    ["seat-1", "No Ox", 250, "lose", -500], ["seat-2", "Five Dukes", 100, "win", 1000],
  ], "each player's outcome and amount");
  same(data.dealer.net, -500, "the dealer's net is minus the players' sum");

  // The largest table the bound allows settles exactly in JavaScript numbers.
  const decks = 8;
  const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const deck = ranks.flatMap((r) => ["S", "H", "D", "C"].map((s) => (r + s) as Card));  // every spelling is a Card
  const cards = Array.from({ length: decks }, () => deck).flat();
  const hand = (i: number): Card[] => cards.slice(5 * i, 5 * i + 5);
  const big = await client.POST("/v1/settlements", {
    body: {
      decks,
      dealer: { hand: hand(0) },
      players: Array.from({ length: 82 }, (_, i) => ({ id: `p${i}`, hand: hand(i + 1), stake: 999_999_999_999 })),
    },
  });
  same(big.response.status, 200, "82 stakes of 999,999,999,999 under standard payouts");
  assert.ok(big.data);
  safeIntegers(big.data, "settlement");
  const sum = big.data.players.reduce((total, p) => total + BigInt(p.amount), 0n);
  same(BigInt(big.data.dealer.net), -sum, "zero-sum, exactly");

  const tooBig = await client.POST("/v1/settlements", {
    body: {
      decks,
      dealer: { hand: hand(0) },
      players: Array.from({ length: 82 }, (_, i) => ({ hand: hand(i + 1), stake: 999_999_999_999 })),
      rules: { payouts: { five_dukes: 1000 }, suited_bonus: "hand", suited_multiplier: 10 },
    },
  });
  same(tooBig.response.status, 400, "a table that could settle beyond 2^53 - 1 is refused");
  const problem = pointers(tooBig.error);
  same(Object.keys(problem), ["/players"], "named by pointer");
  check(problem["/players"]?.includes(String(Number.MAX_SAFE_INTEGER)) ?? false, "the problem names the bound");
}

// The round forms (RULES.md 6.4-6.6): section 8's bid for banker with table caps, and its
// showdown without a dealer.
async function rounds(): Promise<void> {
  operations.add("settleShowdown");
  const banker = await client.POST("/v1/settlements", {
    params: { query: { profile: "niu-niu" } },
    body: {
      decks: 2, base: 100, rules: { balance_caps: "table" },
      dealer: { hand: ["KH", "QS", "10D", "3C", "4C"], bid_multiple: 3, balance: 1000 },
      players: [
        { id: "p1", hand: ["JS", "9H", "AD", "5C", "5D"], bet_multiple: 1, balance: 500 },
        { id: "p2", hand: ["9S", "9D", "KS", "2H", "4D"], bet_multiple: 2, balance: 10_000 },
        { id: "p3", hand: ["KH", "QS", "10D", "3C", "4C"], bet_multiple: 3, balance: 10_000 },
        { id: "p4", hand: ["7S", "3H", "JH", "8C", "10C"], bet_multiple: 4, balance: 10_000 },
      ],
    },
  });
  same(banker.response.status, 200, "a bid-for-banker table with caps");
  assert.ok(banker.data);
  same(banker.data.players.map((p) => [p.stake, p.factors?.bet_multiple, p.gross_uncapped, p.gross, p.cap]), [
    [300, 1, 900, 294, "dealer_balance"], [600, 2, -1200, -706, "dealer_balance"], [900, 3, 0, 0, null],
    [1200, 4, 2400, 1412, "dealer_balance"],
  ], "stakes from the factors, capped by largest remainders");
  same([banker.data.dealer.gross, banker.data.dealer.sweep], [-1000, null], "the dealer pays exactly its balance");

  const showdown = await client.POST("/v1/showdowns", {
    params: { query: { profile: "niu-niu" } },
    body: {
      base: 10,
      players: [
        { id: "s1", hand: ["JS", "9H", "AD", "5C", "5D"], bet_multiple: 2 },
        { id: "s2", hand: ["7S", "3H", "JH", "8C", "10C"] },
        { id: "s3", hand: ["9S", "9D", "KS", "2H", "4D"], bet_multiple: 4 },
        { id: "s4", hand: ["2S", "5H", "8D", "7C", "QH"], bet_multiple: 3 },
      ],
    },
  });
  same(showdown.response.status, 200, "settleShowdown status");
  assert.ok(showdown.data);
  same(showdown.data.players.map((p) => p.gross), [240, -30, -120, -90], "the strongest takes all");
  same(showdown.data.strongest.map((s) => s.id), ["s1"], "the strongest hand");
  same(showdown.data.ranking.map((r) => r.position), [1, 2, 3, 4], "competition positions");
  const alone = await client.POST("/v1/showdowns", { body: { base: 10, players: [{ hand: ["JS", "9H", "AD", "5C", "5D"] }] } });
  same(Object.keys(pointers(alone.error)), ["/players"], "a showdown needs two players");
}

async function profiles(): Promise<void> {
  operations.add("listProfiles");
  operations.add("getProfile");
  const listing = await client.GET("/v1/profiles");
  same(listing.data?.profiles.slice(0, 7).map((p) => p.name),
    ["standard", "casino", "tens-are-dukes", "liberal", "niu-niu", "bull-bull", "niu-niu-plus"],
    "the built-in profiles, in order");
  const niu = await client.GET("/v1/profiles/{name}", { params: { path: { name: "niu-niu" } } });
  same([niu.data?.name, niu.data?.builtin, niu.data?.rules.ties, niu.data?.rules.bomb], ["niu-niu", true, "high_card", true],
    "the niu-niu profile");
  const missing = await client.GET("/v1/profiles/{name}", { params: { path: { name: "vegas" } } });
  same(missing.response.status, 404, "an unknown profile");
  same(missing.error?.type, "/problems/unknown-profile", "its problem type");
  check(missing.error?.detail.includes("'vegas'") ?? false, "the problem names the profile");
}

async function operationsEndpoints(): Promise<void> {
  operations.add("health");
  // A cache-busting parameter, outside the contract: probes ignore it.
  const health = await client.GET("/healthz", { params: { query: { cachebust: "1" } as never } });
  same([health.response.status, health.data?.status], [200, "ok"], "a probe's query string is ignored");
}

// "sha256:" and the hex SHA-256 of the RFC 8785 canonical JSON of a value.
function sha256(value: unknown): string {
  const text = canonicalize(value);
  assert.ok(text !== undefined, "canonical JSON");
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

function base64url(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

async function receipts(): Promise<void> {
  operations.add("getReceiptKeys");
  const keys = await client.GET("/.well-known/jwks.json");
  same(keys.response.status, 200, "the JWK Set");
  assert.ok(keys.data);
  same(keys.data.keys.map((k) => [k.kty, k.crv, k.alg, k.use]), [["OKP", "Ed25519", "Ed25519", "sig"]], "one Ed25519 key");
  check(keys.data.keys.every((k) => !("d" in k)), "no private part");
  const jwks = createLocalJWKSet(keys.data as unknown as JSONWebKeySet);

  const body = {
    dealer: { hand: ["3S", "6H", "8D", "4C", "8H"] as Card[] },
    players: [{ id: "seat-1", hand: ["10H", "9S", "8S", "4D", "4H"] as Card[], stake: 250 },
              { id: "seat-2", hand: ["JS", "QH", "KD", "JC", "QD"] as Card[], stake: 100 }],
  };
  const signed = await client.POST("/v1/settlements", { params: { query: { receipt: "true" } }, body });
  same(signed.response.status, 200, "a settlement with a receipt");
  assert.ok(signed.data?.receipt);
  const { receipt, ...answer } = signed.data;
  const { payload, protectedHeader } = await compactVerify(receipt, jwks, { algorithms: ["Ed25519"] });
  same([protectedHeader.alg, protectedHeader.kid], ["Ed25519", keys.data.keys[0]?.kid], "the header names the key");
  const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, string>;
  same(claims["operation"], "settleRound", "the operation");
  same(claims["profile"], "standard", "the profile");
  same(claims["request_sha256"], sha256(body), "the request is the one signed");
  same(claims["response_sha256"], sha256(answer), "the answer is the one signed");
  check(claims["rules_sha256"]?.startsWith(answer.rules_digest) ?? false, "rules_sha256 extends rules_digest");
  check(claims["response_sha256"] !== sha256({ ...answer, house: answer.house + 1 }), "a tampered answer fails");
  check(claims["request_sha256"] !== sha256({ ...body, decks: 2 }), "a tampered request fails");
  // A payload rewritten to match the tampered answer no longer verifies.
  const [header, , signature] = receipt.split(".");
  const forged = [header, base64url(canonicalize({ ...claims, response_sha256: sha256({ ...answer, house: 1 }) }) ?? ""),
                  signature].join(".");
  await assert.rejects(compactVerify(forged, jwks, { algorithms: ["Ed25519"] }), "a forged receipt is refused");
  checks += 1;

  const plain = await client.POST("/v1/settlements", { body });
  same(plain.data, answer, "without receipt=true: the same answer, no receipt");
  const bad = await client.POST("/v1/settlements", { params: { query: { receipt: "yes" as "true" } }, body });
  same(bad.error?.errors?.[0]?.parameter, "receipt", "receipt takes true or false");
}

async function deals(): Promise<void> {
  operations.add("dealHands");
  operations.add("verifyDeal");
  const seeds = { server_seed: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", client_seed: "player-1" };
  const dealt = await client.POST("/v1/deals", { body: { ...seeds, nonce: 0, hands: 4 } });
  same(dealt.data?.commitment, "sha256:630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
       "section 8's commitment");
  same(dealt.data?.hands.map((h) => h.join(" ")),
       ["9D 7H 5S 6C 10D", "4S 10H 10S 10C AS", "KS 6D 8C QC 4H", "4C 7S 4D 2D 5H"], "section 8's hands");
  const verified = await client.POST("/v1/deals/verify", {
    body: { ...seeds, nonce: 0, commitment: dealt.data?.commitment ?? "", hands: [dealt.data?.hands[0] ?? null, null, null, null] },
  });
  same([verified.data?.hands_match, verified.data?.match], [[true, null, null, null], true], "a known hand verifies");
  const bad = await client.POST("/v1/deals", { body: { ...seeds, server_seed: "0".repeat(33), nonce: 0, hands: 4 } });
  same(bad.error?.errors?.[0]?.pointer, "/server_seed", "an odd-length seed");
}

await evaluations();
await batch();
await ranking();
await settlement();
await rounds();
await profiles();
await operationsEndpoints();
await receipts();
await deals();
console.log(JSON.stringify({ ok: true, checks, operations: [...operations].sort() }));
