// A server that dies before answering anything.
process.stderr.write('fatal: no configuration found\n');
process.exit(1);
