import run from './bench/sdk.bench';
process.on('beforeExit', () => console.log('beforeExit'));
run().then(() => console.log('done'), (e) => console.log('err', e));
