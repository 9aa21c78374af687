import { LineSplitter } from './core/usage/lines';
import { SseDecoder } from './core/usage/sse';
import { createUsageStream } from './core/usage';
import { jsonKey, valueIndex, tallyStringAt } from './core/usage/json-scan';
import { TokenTally } from './core/usage/estimate';
const parts:string[]=[];for(let k=0;k<60000;k++){parts.push(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" cafe and the model"}}\n\n`);}
const text=parts.join('');const bytes=new TextEncoder().encode(text);const ch:Uint8Array[]=[];for(let i=0;i<bytes.length;i+=16384)ch.push(bytes.subarray(i,i+16384));
const frames=parts.map(p=>p.slice(p.indexOf('data: ')+6,-2));
function t(name:string,f:()=>number){let c=0;for(let i=0;i<3;i++)c+=f();const c0=process.cpuUsage();let r=0;const w=performance.now();while(performance.now()-w<1200){c+=f();r++;}const cu=process.cpuUsage(c0);console.log(name.padEnd(24),(bytes.length*r/1e6/((cu.user+cu.system)/1e6)).toFixed(0),'MB/s cpu');}
t('split+sse',()=>{let n=0;const sse=new SseDecoder(1<<20,{frame(d:string,e:string){n+=d.length+e.length},overflow(){}});const sp=new LineSplitter(1<<20,sse);for(const c of ch)sp.push(c);sp.end();return n;});
const TEXT=jsonKey('text');
t('handler-only on frames',()=>{const tt=new TokenTally(undefined);let n=0;for(const f of frames){const v=valueIndex(f,TEXT);n+=tallyStringAt(f,v,tt);}return n;});
t('valueIndex only',()=>{let n=0;for(const f of frames){n+=valueIndex(f,TEXT);}return n;});
t('indexOf text" only',()=>{let n=0;for(const f of frames){n+=f.indexOf('text"');}return n;});
t('switch eq',()=>{let n=0;const ev=frames.map(()=> 'content_block_delta'.slice(0));for(const e of ev){switch(e){case 'content_block_delta':n++;break;case 'message_start':n+=2;}}return n;});
t('full',()=>{const s=createUsageStream('anthropic');for(const c of ch)s.push(c);return s.end().ok?1:0;});
t('lastIndexOf "text":',()=>{let n=0;for(const f of frames){n+=f.lastIndexOf('"text":');}return n;});
t('lastIndexOf text"',()=>{let n=0;for(const f of frames){n+=f.lastIndexOf('text"');}return n;});
t('indexOf text" from 40',()=>{let n=0;for(const f of frames){n+=f.indexOf('text"',40);}return n;});
