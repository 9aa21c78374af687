import { createUsageStream } from './core/usage';
const WORDS = [' the',' model',' returns',' tokens',' as',' they',' are',' generated',',',' and',' a',' stream',' of',' server-sent',' events',' carries',' each',' delta','.',' Résumé',' naïve',' café',' 東京',' データ',' 🚀','\\n','\\n\\n',' \\"quoted\\"',' function','(x)',' {',' }',' =>',' 42',' usage'];
function lcg(seed:number){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
const rand=lcg(2);const parts:string[]=['event: message_start\ndata: {"type":"message_start","message":{"model":"claude","id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":12,"output_tokens":1}}}\n\n'];
let size=0,n=0;while(size<8e6){let t='';const w=1+Math.floor(rand()*5);for(let i=0;i<w;i++)t+=WORDS[Math.floor(rand()*WORDS.length)];const f=`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}\n\n`;parts.push(f);size+=f.length;n+=w;}
parts.push(`event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":${n}}}\n\n`);
const bytes=new TextEncoder().encode(parts.join(''));const ch:Uint8Array[]=[];for(let i=0;i<bytes.length;i+=16384)ch.push(bytes.subarray(i,i+16384));
const run=()=>{const s=createUsageStream('anthropic');for(const c of ch)s.push(c);return s.end();};
for(let i=0;i<5;i++)run();
const rates:number[]=[];for(let k=0;k<5;k++){const c0=process.cpuUsage();let r=0;const w=performance.now();while(performance.now()-w<500){run();r++;}const cu=process.cpuUsage(c0);rates.push(bytes.length*r/1e6/((cu.user+cu.system)/1e6));}
rates.sort((a,b)=>a-b);console.log('anthropic cpu MB/s best',rates[4]!.toFixed(0),'median',rates[2]!.toFixed(0));
