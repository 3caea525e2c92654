// A server that reads requests and never answers; it leaves when stdin closes. With an argument N
// it also leaves after N ms, so a checker that ignores --timeout sees it exit instead of timing out.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
const leaveAfterMs = Number(process.argv[2]);
if (leaveAfterMs > 0) setTimeout(() => process.exit(0), leaveAfterMs);
