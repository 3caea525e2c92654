// A server that logs to stdout, which is reserved for protocol frames.
process.stdout.write('starting chatty server v1 ...\n');
process.stdin.resume();
