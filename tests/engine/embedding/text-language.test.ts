// The welcome offers a model by the vault's languages: each text's language, and a vault's shares.
import { describe, expect, test } from "vitest";
import { readsEnglishOnly } from "../../../src/engine/embedding/dimensions";
import { describeLanguages, guessLanguage, languageShares, mostlyEnglish, queryLanguage } from "../../../src/engine/embedding/text-language";

const SAMPLES: Record<string, string> = {
	en: "The cache is invalidated when the plan changes, and the invoice totals are computed again for the customer.",
	es: "La caché se invalida cuando cambia el plan, y los totales de la factura se calculan de nuevo para el cliente que lo pidió.",
	fr: "Le cache est invalidé quand le plan change, et les totaux de la facture sont calculés de nouveau pour le client qui les demande.",
	de: "Der Cache wird ungültig, wenn sich der Tarif ändert, und die Summen der Rechnung werden für den Kunden neu berechnet, auch nachts.",
	it: "La cache non è più valida quando il piano cambia, e i totali della fattura sono calcolati di nuovo per il cliente che li chiede.",
	pt: "O cache é invalidado quando o plano muda, e os totais da fatura são calculados de novo para o cliente que não pediu nada.",
	nl: "De cache is niet meer geldig als het plan verandert, en de totalen van de factuur worden opnieuw berekend voor de klant die er om vraagt.",
	ja: "プランが変わるとキャッシュが無効になり、請求書の合計が顧客のために再計算されます。これは夜間にも行われます。",
	zh: "当计划改变时缓存失效，发票总额会为客户重新计算。这个过程在夜间也会进行，以确保数据一致。",
	ko: "요금제가 바뀌면 캐시가 무효화되고 고객을 위해 청구서 합계가 다시 계산됩니다. 이 작업은 밤에도 실행됩니다.",
	ru: "Кэш становится недействительным при смене тарифа, и суммы счёта пересчитываются для клиента заново каждую ночь.",
	th: "เมื่อแผนเปลี่ยน แคชจะใช้ไม่ได้ และยอดรวมของใบแจ้งหนี้จะถูกคำนวณใหม่สำหรับลูกค้า ซึ่งจะทำในตอนกลางคืนด้วย",
};

describe("the language of a note", () => {
	test.each(Object.entries(SAMPLES))("%s", (language, text) => {
		expect(guessLanguage(text)).toBe(language);
	});

	test("code, links and frontmatter do not make a note English", () => {
		const note = `---\ntitle: the one with the code\ntags: [and, of, the]\n---\n${SAMPLES.es}\n\n\`\`\`ts\nif (the && and) return this.is.the.code;\n\`\`\`\n[[The note of the day]] https://example.com/the/and/of/is/in/that`;
		expect(guessLanguage(note)).toBe("es");
	});

	test("a note too short to tell is left out", () => {
		expect(guessLanguage("# Inbox\n\n- milk")).toBeNull();
	});
});

describe("a vault's languages", () => {
	test("shares, most frequent first; mostly English only at half or more", () => {
		const spanishVault = [SAMPLES.es, SAMPLES.es, SAMPLES.es, SAMPLES.en, "tiny"];
		const shares = languageShares(spanishVault);
		expect(shares).toEqual([
			{ language: "es", share: 0.75 },
			{ language: "en", share: 0.25 },
		]);
		expect(mostlyEnglish(shares)).toBe(false);
		expect(describeLanguages(shares)).toBe("Spanish 75 %, English 25 %");
		expect(mostlyEnglish(languageShares([SAMPLES.en, SAMPLES.fr]))).toBe(true);
		// Nothing could be told (empty notes): the English default stays.
		expect(mostlyEnglish(languageShares(["", "ok"]))).toBe(true);
	});
});

// Search trusts an English-only model less for a query in another language (HybridSearch, foreignVectorShare).
describe("the language of a search query", () => {
	test.each([
		["qué pasa con las lecturas fantasma si no uso aislamiento serializable", "other"],
		["enrutamiento cebolla con relays para navegar sin revelar el origen", "other"],
		["deshacer o rehacer transacciones a partir de los ficheros de registro tras un fallo", "other"],
		["数据库迁移", "other"],
		["réunion", "other"],
		["why do all my tasks have the same urgency score", "en"],
		// One English word decides over an accent or two words other languages share ("as", "a").
		["What precautionary sign did Melanie see at the café?", "en"],
		["Would Caroline pursue writing as a career option?", "en"],
		["PostgreSQL", null],
		["SFIA define siete niveles", null],
		["", null],
	] as const)("%s → %s", (query, language) => {
		expect(queryLanguage(query)).toBe(language);
	});

	test("English-only models by name, whatever the prefix or tag; unknown and multilingual ones read any language", () => {
		expect(readsEnglishOnly("Xenova/all-MiniLM-L6-v2")).toBe(true);
		expect(readsEnglishOnly("BAAI/bge-small-en-v1.5")).toBe(true);
		expect(readsEnglishOnly("nomic-embed-text:latest")).toBe(true);
		expect(readsEnglishOnly("Xenova/paraphrase-multilingual-MiniLM-L12-v2")).toBe(false);
		expect(readsEnglishOnly("multilingual-e5-small")).toBe(false);
		expect(readsEnglishOnly("text-embedding-3-small")).toBe(false);
		expect(readsEnglishOnly("hash-256")).toBe(false);
	});
});
