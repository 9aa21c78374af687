import { LineSplitter } from './core/usage/lines';
import { SseDecoder } from './core/usage/sse';
function mk(withEvent:boolean, nonAscii:boolean){const parts:string[]=[];for(let k=0;k<60000;k++){parts.push(`${withEvent?'event: content_block_delta\n':''}data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${nonAscii?' café':' cafe'}"}}\n\n`);}
const bytes=new TextEncoder().encode(parts.join(''));const dec=new TextDecoder();const texts:string[]=[];for(let i=0;i<bytes.length;i+=16384)texts.push(dec.decode(bytes.subarray(i,i+16384)));return texts;}
function t(name:string, texts:string[], f:(x:string[])=>number){const total=texts.reduce((a,t)=>a+t.length,0);let c=0;for(let i=0;i<3;i++)c+=f(texts);const c0=process.cpuUsage();let r=0;const w=performance.now();while(performance.now()-w<1000){c+=f(texts);r++;}const cu=process.cpuUsage(c0);console.log(name.padEnd(24),(total*r/1e6/((cu.user+cu.system)/1e6)).toFixed(0),'Mchar/s cpu');}
const run=(texts:string[])=>{let n=0;const sse=new SseDecoder(1<<20,{frame(d:string){n+=d.length},overflow(){}});const sp=new LineSplitter(1<<20,sse);for(const s of texts)sp.pushText(s);sp.end();return n;};
t('event+ascii',mk(true,false),run);
t('event+nonascii',mk(true,true),run);
t('noevent+ascii',mk(false,false),run);
t('noevent+nonascii',mk(false,true),run);
