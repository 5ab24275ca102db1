// An OpenAI-compatible /v1/embeddings server for the interoperability test, run as its own process
// (the test's CLI and Python runs are synchronous). Vectors come from keywords and are left
// unnormalised on purpose: L2 and cosine then rank them differently (query "xylo" is [1,0,0,0];
// "zeppelin" [10,0,0,0]: cosine 1, L2 distance 9; "yonder" [1,1,0,0]: cosine 0.707, L2 distance 1).
import { createServer } from "node:http";

const KEYWORDS = { zeppelin: [10, 0, 0, 0], yonder: [1, 1, 0, 0], xylo: [1, 0, 0, 0] };

function embed(text) {
	const vector = [0, 0, 0, 0];
	for (const [word, add] of Object.entries(KEYWORDS)) {
		if (text.toLowerCase().includes(word)) add.forEach((x, i) => (vector[i] += x));
	}
	if (vector.every((x) => x === 0)) vector[2] = 1;
	return vector;
}

const server = createServer((req, res) => {
	let body = "";
	req.on("data", (chunk) => (body += chunk));
	req.on("end", () => {
		let input;
		try {
			input = JSON.parse(body).input;
		} catch {
			res.writeHead(400).end();
			return;
		}
		const texts = Array.isArray(input) ? input : [input];
		const out = JSON.stringify({ object: "list", data: texts.map((t, index) => ({ object: "embedding", index, embedding: embed(String(t)) })), model: "fake" });
		res.writeHead(200, { "content-type": "application/json" }).end(out);
	});
});
server.listen(0, "127.0.0.1", () => console.log(`port ${server.address().port}`));
