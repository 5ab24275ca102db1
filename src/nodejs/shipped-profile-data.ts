// The shipped profiles (profiles/*.yaml, profiles/modules/*.yaml) already turned from YAML into
// data, keyed by each file's whole text. Empty here: the command line's bundle replaces
// this module with the files parsed when it was built (preparse-profiles.mjs), so a command skips
// the YAML parser for them. An edited file has another hash and is parsed from its text as before.
export const PREPARSED_PROFILES: Readonly<Record<string, unknown>> = {};
