export { loadProfile, parseProfile, type ProfileResult, type ProfileSource } from "./load-profile";
export { Profile, SYSTEM_STATUSES, relationTypeKey, statusKey, type LabelDef, type RelationDef, type StatusResult, type StatusVocabulary } from "./profile";
export { ProfileError, formatIssue, type ProfileIssue } from "./profile-error";
export { ANY_LABEL } from "./profile-schema";
export { labelsOfOtherModules } from "./module-labels";
