#!/usr/bin/env node
// Smoke test for the Neo4j test server (scripts/neo4j-test-server.sh start):
// connects with auth disabled, creates a fulltext and a vector index, writes two nodes and
// queries both indexes. `check` only re-queries (e.g. after `restart`, to prove data survived);
// `cleanup` removes the smoke nodes and indexes.
//
//   node scripts/neo4j-smoke.mjs [all|setup|check|cleanup]     (default: all = setup + check)
//
// Connection: NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD / NEO4J_DATABASE from the environment,
// else from .neo4j-test/env.
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import neo4j from 'neo4j-driver';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const envFile = process.env.NEO4J_TEST_STATE_DIR
  ? join(process.env.NEO4J_TEST_STATE_DIR, 'env')
  : join(root, '.neo4j-test', 'env');
const fileEnv = {};
if (existsSync(envFile)) {
  for (const line of readFileSync(envFile, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) fileEnv[m[1]] = m[2];
  }
}
const conf = (k, d) => process.env[k] ?? fileEnv[k] ?? d;
const uri = conf('NEO4J_URI');
if (!uri) {
  console.error(`no NEO4J_URI in the environment or ${envFile}: run scripts/neo4j-test-server.sh start`);
  process.exit(2);
}
const user = conf('NEO4J_USERNAME', 'neo4j');
const password = conf('NEO4J_PASSWORD', '');
const database = conf('NEO4J_DATABASE', 'neo4j');
const mode = process.argv[2] ?? 'all';

const auth = password ? neo4j.auth.basic(user, password) : neo4j.auth.none();
const driver = neo4j.driver(uri, auth, { disableLosslessIntegers: true });
const run = async (q, p = {}) => (await driver.executeQuery(q, p, { database })).records;

function assert(cond, msg) {
  if (!cond) throw new Error(`smoke check failed: ${msg}`);
}

async function setup() {
  await run(`CREATE FULLTEXT INDEX smoke_fulltext IF NOT EXISTS
             FOR (n:SmokeNote) ON EACH [n.title, n.body]`);
  await run(`CREATE VECTOR INDEX smoke_vector IF NOT EXISTS
             FOR (n:SmokeNote) ON n.embedding
             OPTIONS {indexConfig: {\`vector.dimensions\`: 4, \`vector.similarity_function\`: 'cosine'}}`);
  await run('CALL db.awaitIndexes(60)');
  await run(
    `UNWIND $rows AS row
     MERGE (n:SmokeNote {id: row.id})
     SET n.title = row.title, n.body = row.body, n.embedding = row.embedding`,
    {
      rows: [
        { id: 'a', title: 'Graph memory', body: 'engrama stores notes as a graph', embedding: [1.0, 0.0, 0.0, 0.0] },
        { id: 'b', title: 'Vector search', body: 'cosine similarity over embeddings', embedding: [0.0, 1.0, 0.0, 0.0] },
      ],
    },
  );
  console.log('setup: indexes + 2 nodes written');
}

async function check() {
  const ft = await run(
    `CALL db.index.fulltext.queryNodes('smoke_fulltext', $q) YIELD node, score
     RETURN node.id AS id, score ORDER BY score DESC`,
    { q: 'engrama' },
  );
  console.log('fulltext:', ft.map((r) => `${r.get('id')}@${r.get('score').toFixed(3)}`).join(' '));
  assert(ft.length >= 1 && ft[0].get('id') === 'a', 'fulltext query should find node a first');

  const vec = await run(
    `CALL db.index.vector.queryNodes('smoke_vector', 2, $v) YIELD node, score
     RETURN node.id AS id, score`,
    { v: [0.1, 0.9, 0.0, 0.0] },
  );
  console.log('vector:', vec.map((r) => `${r.get('id')}@${r.get('score').toFixed(3)}`).join(' '));
  assert(vec.length === 2 && vec[0].get('id') === 'b', 'vector query should rank node b first');

  const [ver] = await run('CALL dbms.components() YIELD name, versions, edition RETURN versions[0] AS v, edition');
  console.log(`server: Neo4j ${ver.get('v')} ${ver.get('edition')} at ${uri}`);
}

async function cleanup() {
  await run('MATCH (n:SmokeNote) DETACH DELETE n');
  await run('DROP INDEX smoke_fulltext IF EXISTS');
  await run('DROP INDEX smoke_vector IF EXISTS');
  console.log('cleanup: done');
}

try {
  await driver.verifyConnectivity({ database });
  if (mode === 'all' || mode === 'setup') await setup();
  if (mode === 'all' || mode === 'check') await check();
  if (mode === 'cleanup') await cleanup();
  if (!['all', 'setup', 'check', 'cleanup'].includes(mode)) throw new Error(`unknown mode ${mode}`);
  console.log('neo4j smoke: OK');
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
} finally {
  await driver.close();
}
