import { LineSplitter } from './core/usage/lines';
import { SseDecoder } from './core/usage/sse';
const WORDS=[' the',' model',' returns',' tokens',' as',' café',' 東京','\\n',' \\"q\\"'];
let seed=1;const rand=()=>{seed=(seed*1664525+1013904223)>>>0;return seed/2**32};
const parts:string[]=[];
for(let k=0;k<60000;k++){let t='';const w=1+Math.floor(rand()*5);for(let i=0;i<w;i++)t+=WORDS[Math.floor(rand()*WORDS.length)];parts.push(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}\n\n`);}
const bytes=new TextEncoder().encode(parts.join(''));
const dec=new TextDecoder();
const texts:string[]=[];for(let i=0;i<bytes.length;i+=16384)texts.push(dec.decode(bytes.subarray(i,i+16384)));
let n=0;const w=performance.now();
while(performance.now()-w<4000){const sse=new SseDecoder(1<<20,{frame(d:string){n+=d.length},overflow(){}});const sp=new LineSplitter(1<<20,sse);for(const s of texts)sp.pushText(s);sp.end();}
console.log(n>0);
