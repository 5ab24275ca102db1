export type * from "./graph-store";
export type * from "./vector-store";
export type * from "./embedding-provider";
export type * from "./reflect-rows";
