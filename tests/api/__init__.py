"""The API's tests through the in-process app: operations, fields, the golden corpus, the
contract (schemathesis), CORS, knobs against the spec, operator profiles, the CLI."""
