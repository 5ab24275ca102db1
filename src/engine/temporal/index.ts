export { daysBefore, daysBetween, parsePointInTime } from "./dates";
export { decayedConfidence, decayReport, validateDecayOptions, type DecayChange, type DecayOptions, type DecayReport } from "./decay";
export { propChanges, propsAsOf } from "./history";
export { queryAtDate, type AtDateQuery } from "./query-at-date";
