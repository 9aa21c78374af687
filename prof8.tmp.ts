import { createUsageStream } from './core/usage';
import type { ProviderId } from './core/providers';
function mk(withEvent:boolean, nonAscii:boolean){const parts:string[]=[];for(let k=0;k<60000;k++){parts.push(`${withEvent?'event: content_block_delta\n':''}data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${nonAscii?' café':' cafe'}"}}\n\n`);}
const bytes=new TextEncoder().encode(parts.join(''));const ch:Uint8Array[]=[];for(let i=0;i<bytes.length;i+=16384)ch.push(bytes.subarray(i,i+16384));return {ch,len:bytes.length};}
function t(name:string, d:{ch:Uint8Array[],len:number}, p:ProviderId){const f=()=>{const s=createUsageStream(p);for(const c of d.ch)s.push(c);return s.end().ok?1:0};let c=0;for(let i=0;i<3;i++)c+=f();const c0=process.cpuUsage();let r=0;const w=performance.now();while(performance.now()-w<1500){c+=f();r++;}const cu=process.cpuUsage(c0);const el=performance.now()-w;console.log(name.padEnd(24),(d.len*r/1e6/((cu.user+cu.system)/1e6)).toFixed(0),'MB/s cpu',(d.len*r/1e6/(el/1000)).toFixed(0),'MB/s wall');}
t('anthropic ascii',mk(true,false),'anthropic');
t('anthropic nonascii',mk(true,true),'anthropic');
