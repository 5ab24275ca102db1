import { readFileSync } from "node:fs";

/**
 * CPU a process has used so far, in milliseconds: utime + stime from /proc/<pid>/stat (clock
 * ticks, 100 a second on Linux). NaN when the pid is unknown or the process is gone, so a bench
 * run without --server-pid still prints its wall times.
 */
export function processCpuMs(pid: number | string | undefined): number {
	if (!pid) return Number.NaN;
	try {
		// Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
		const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
		return (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		return Number.NaN;
	}
}

/** This process's CPU so far (user + system), in milliseconds. */
export function ownCpuMs(): number {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}

/** The 1, 5 and 15 minute load averages, as printed beside every figure. */
export function loadAverage(): string {
	return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
