/** The MCP bridge: the fifteen engrama_* tools over Streamable HTTP (localhost), stdio, and a stdio→HTTP proxy. */
export { createEngramaMcpServer, createToolEnv, SERVER_NAME } from "./create-mcp-server";
export { checkRequest, isLoopbackHost, tokenMatches } from "./http-guard";
export { DEFAULT_MCP_PORT, MCP_PATH, startMcpHttpServer, type McpHttpHandle, type McpHttpOptions } from "./http-server";
export { defaultTokenFile, generateMcpToken, loadOrCreateToken, readToken, writeTokenFile, type TokenFileResult } from "./mcp-token";
export type { McpServerInput, McpServices, McpVault } from "./mcp-services";
export { createNodeVaultGuard } from "./node-vault-guard";
export { ORG_HEADER, USER_HEADER, scopeFromHeaders, type CallScope } from "./scope-headers";
export { serveMcpStdio, type StdioHandle, type StdioStreams } from "./stdio-server";
export { runMcpStdioProxy, type StdioProxyOptions } from "./stdio-proxy";
export { TOOL_NAMES } from "./tools";
export { checkNotePath, checkVaultRelativePath } from "./vault-path";
