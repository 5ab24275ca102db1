export { daysBefore, daysBetween, parsePointInTime } from "./dates";
export { decayConfidence, decayedConfidence, validateDecayOptions, type DecayChange, type DecayOptions, type DecayReport } from "./decay";
export { propChanges, propsAsOf } from "./history";
export { queryAtDate, type AtDateQuery } from "./query-at-date";
