import { LineSplitter } from './core/usage/lines';
import { SseDecoder } from './core/usage/sse';
import { createUsageStream } from './core/usage';
import { jsonKey, valueIndex, tallyStringsWithin, readStringValue } from './core/usage/json-scan';
import { TokenTally } from './core/usage/estimate';
const MB=1e6;
const WORDS=[' the',' model',' returns',' tokens',' as',' café',' 東京','\\n',' \\"q\\"'];
let seed=1;const rand=()=>{seed=(seed*1664525+1013904223)>>>0;return seed/2**32};
const parts:string[]=[];
for(let k=0;k<60000;k++){let t='';const w=1+Math.floor(rand()*5);for(let i=0;i<w;i++)t+=WORDS[Math.floor(rand()*WORDS.length)];parts.push(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}\n\n`);}
const text=parts.join('');const bytes=new TextEncoder().encode(text);
const chunks:Uint8Array[]=[];for(let i=0;i<bytes.length;i+=16384)chunks.push(bytes.subarray(i,i+16384));
function t(name:string, f:()=>number){let c=0;for(let i=0;i<3;i++)c+=f();const s=performance.now();let r=0;while(performance.now()-s<1000){c+=f();r++;}console.log(name.padEnd(20),(bytes.length*r/MB/((performance.now()-s)/1000)).toFixed(0),'MB/s',c>0?'':'-');}
t('lines',()=>{let n=0;const sp=new LineSplitter(1<<20,{line(t,a,b){n+=b-a},overflow(){}});for(const c of chunks)sp.push(c);sp.end();return n;});
t('sse',()=>{let n=0;const sse=new SseDecoder(1<<20,{frame(d){n+=d.length},overflow(){}});const sp=new LineSplitter(1<<20,sse);for(const c of chunks)sp.push(c);sp.end();return n;});
const frames=parts.map(p=>p.slice(p.indexOf('data: ')+6,-2));
const DELTA=jsonKey('delta'),TEXT=['text','thinking','partial_json'].map(jsonKey),TYPE=jsonKey('type');
t('valueIndex delta',()=>{let n=0;for(const f of frames)n+=valueIndex(f,DELTA);return n;});
t('walk',()=>{const tt=new TokenTally(undefined);let n=0;for(const f of frames){const v=valueIndex(f,DELTA);n+=tallyStringsWithin(f,v,TEXT,tt);}return n;});
t('readType',()=>{let n=0;for(const f of frames)n+=(readStringValue(f,TYPE)??'').length;return n;});
t('full',()=>{const s=createUsageStream('anthropic');for(const c of chunks)s.push(c);s.end();return 1;});
