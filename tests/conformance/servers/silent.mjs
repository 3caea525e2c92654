// A server that reads requests and never answers.
process.stdin.resume();
