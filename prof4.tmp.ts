import { createUsageStream } from './core/usage';
const WORDS=[' the',' model',' returns',' tokens',' as',' café',' 東京','\\n',' \\"q\\"'];
let seed=1;const rand=()=>{seed=(seed*1664525+1013904223)>>>0;return seed/2**32};
const parts:string[]=[];
for(let k=0;k<60000;k++){let t='';const w=1+Math.floor(rand()*5);for(let i=0;i<w;i++)t+=WORDS[Math.floor(rand()*WORDS.length)];parts.push(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}\n\n`);}
const bytes=new TextEncoder().encode(parts.join(''));
const chunks:Uint8Array[]=[];for(let i=0;i<bytes.length;i+=16384)chunks.push(bytes.subarray(i,i+16384));
const s0=performance.now();let r=0;
while(performance.now()-s0<4000){const s=createUsageStream('anthropic');for(const c of chunks)s.push(c);s.end();r++;}
console.log((bytes.length*r/1e6/((performance.now()-s0)/1000)).toFixed(0),'MB/s');
{const c0=process.cpuUsage();let r2=0;const w0=performance.now();
while(performance.now()-w0<3000){const s=createUsageStream('anthropic');for(const c of chunks)s.push(c);s.end();r2++;}
const cu=process.cpuUsage(c0);console.log('cpu-time',(bytes.length*r2/1e6/((cu.user+cu.system)/1e6)).toFixed(0),'MB/s');}
