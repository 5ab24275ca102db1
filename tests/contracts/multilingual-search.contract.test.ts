import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkills } from "../../src/engine/skills";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { testBackends } from "./backends";

/** Notes in scripts written without spaces (and Korean, and accents): every word findable, no model. */
const NOTES: Record<string, string> = {
	"Chinese migration": "我们把旧的数据库迁移到PostgreSQL的时候遇到了很多问题。",
	"Chinese cache": "缓存失效以后服务变慢了。",
	"Japanese sync": "モバイルアプリでデータを同期すると、ときどきタイムアウトが発生する。",
	"Japanese storage": "データベースの容量が足りなくなったので、古いログを削除した。",
	"Korean meeting": "지난주 회의에서 배포 일정을 다시 정했다.",
	"Korean budget": "예산 검토는 다음 달로 미뤘다.",
	"Thai release": "ทีมงานตัดสินใจเลื่อนการปล่อยซอฟต์แวร์ออกไปหนึ่งสัปดาห์",
	"Thai cat": "แมวของฉันชอบนอนบนแป้นพิมพ์",
	"Thai soup": "ต้มน้ำให้เดือดแล้วทุบตะไคร้และข่าให้แตกก่อนใส่ลงในหม้อ",
	"French notes": "Le café était fermé, donc la réunion a eu lieu à la bibliothèque.",
	"Cat diary": "私の猫",
};

describe.each(testBackends())("words in every script on $name", (backend) => {
	let opened: OpenedMemory;

	beforeAll(async () => {
		opened = await backend.open();
		const ctx = { scope: opened.scope, source: "cli" as const };
		for (const [name, description] of Object.entries(NOTES)) {
			await opened.memory.remember(ctx, { label: "Concept", key: name, props: { description } });
		}
	});
	afterAll(async () => {
		await opened.close();
	});

	const names = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name);

	it.each([
		["数据库", "Chinese migration"],
		["迁移", "Chinese migration"],
		["PostgreSQL", "Chinese migration"],
		["postgresql 数据库迁移", "Chinese migration"],
		["缓存", "Chinese cache"],
		["同期", "Japanese sync"],
		["タイムアウト", "Japanese sync"],
		["データベース", "Japanese storage"],
		["データベースの容量", "Japanese storage"],
		["회의", "Korean meeting"],
		["배포 일정", "Korean meeting"],
		["예산", "Korean budget"],
		["ซอฟต์แวร์", "Thai release"],
		["สัปดาห์", "Thai release"],
		["แมว", "Thai cat"],
		["bibliothèque", "French notes"],
		["reunion", "French notes"],
		["猫", "Cat diary"],
	])("%s finds %s first", async (query, expected) => {
		const found = await names(query);
		expect(found[0]).toBe(expected);
	});

	it("a word of one script does not match a note that only shares characters out of order", async () => {
		// 库 and 据 both occur in "数据库", but "库据" is not in any note.
		expect(await names("库据")).toEqual([]);
		expect(await names("移迁")).toEqual([]);
	});

	it("search (the skill agents call) finds the same notes", async () => {
		const skills = createSkills(opened.memory);
		const result = await skills.search(opened.scope, "数据库迁移", { limit: 5 });
		expect(result.results[0]?.name).toBe("Chinese migration");
		const korean = await skills.search(opened.scope, "회의", { limit: 5 });
		expect(korean.results[0]?.name).toBe("Korean meeting");
		// A word with a tone mark, through the skill's keyword query.
		const thai = await skills.search(opened.scope, "ตะไคร้", { limit: 5 });
		expect(thai.results[0]?.name).toBe("Thai soup");
	});
});
