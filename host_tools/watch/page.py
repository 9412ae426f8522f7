"""The page ``spit watch`` serves: big enough for a TV across the room, fine on a phone.

Each pile's top card in the pile's colour, a flash per verdict (TIE, LATE, ILLEGAL with why, the
race's delta t in large type), the spit-call countdown, the round's end with who took which pile,
the referee's questions and their answers, game over with the result and a link to the full
replay.  Optional sound (a call on "Spit!", a tone on an illegal card), off until a tap allows it
(browsers allow sound only after one).  It reads ``/events`` (server-sent events); the first
event is the whole current state, so a late joiner sees the table at once.  With ``?ack=1`` it
reports each event it has drawn to ``/ack`` (the end-to-end test and the latency bench).
"""

PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spit referee - live</title>
<style>
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#10141c;color:#f1f3f7}
header{display:flex;flex-wrap:wrap;gap:2vw;align-items:baseline;padding:1vh 3vw;font-size:clamp(16px,2.4vw,34px)}
header .phase{color:#9fb0c8}
#piles{display:flex;flex-wrap:wrap;justify-content:center;gap:3vw;padding:2vh 2vw}
.pile{border-radius:2vw;padding:2vh 3vw;min-width:22vw;text-align:center;border:0.6vw solid}
.pile .name{font-size:clamp(14px,2vw,30px);opacity:.85}
.pile .top{font-size:clamp(64px,14vw,220px);font-weight:800;line-height:1.05}
.pile .size{font-size:clamp(14px,2vw,28px);opacity:.8}
.p0{border-color:#3b82f6;background:#13233f}.p1{border-color:#f97316;background:#3a2111}.p2{border-color:#22c55e;background:#10311c}
#flash{position:fixed;left:0;right:0;top:18vh;text-align:center;pointer-events:none;opacity:0;transition:opacity .25s}
#flash.on{opacity:1}
#flash .big{display:inline-block;padding:1vh 4vw;border-radius:2vw;font-size:clamp(48px,11vw,180px);font-weight:900}
#flash .dt{font-size:clamp(36px,7vw,120px);font-weight:800}
#flash .why{font-size:clamp(18px,3vw,48px);background:#000a;display:inline-block;padding:.5vh 2vw;border-radius:1vw}
#countdown{text-align:center;font-size:clamp(48px,12vw,200px);font-weight:900;color:#facc15;min-height:1em}
#question,#roundend,#over{margin:1vh 3vw;padding:1vh 2vw;border-radius:1vw;font-size:clamp(18px,3vw,44px)}
#question{background:#1e3a5f}#roundend{background:#1f3b2f}#over{background:#5b1f1f}
#over a{color:#fde68a}
#over .sum{font-size:clamp(13px,1.6vw,24px);opacity:.9}
#recent{margin:1vh 3vw;padding-left:2vw;font-size:clamp(13px,1.6vw,24px);color:#c7d0dd}
#sound{font-size:clamp(14px,1.8vw,26px);padding:.5vh 1.5vw;border-radius:1vw;border:1px solid #9fb0c8;
background:#1b2330;color:#f1f3f7}
.hidden{display:none}
</style></head><body>
<header><b>Spit referee</b><span class="phase" id="phase">connecting...</span><span id="round"></span>
<span id="cards"></span><button id="sound">sound off (tap for sound)</button></header>
<div id="piles"></div>
<div id="countdown"></div>
<div id="question" class="hidden"></div>
<div id="roundend" class="hidden"></div>
<div id="over" class="hidden"></div>
<ul id="recent"></ul>
<div id="flash"><div class="big"></div><div class="dt"></div><div class="why"></div></div>
<script>
(function(){
var COLOURS=['#3b82f6','#f97316','#22c55e'], KINDS={TIE:'#7b2cbf',LATE:'#f08c00',ILLEGAL:'#d7263d',EARLY:'#2f6fde'};
var ack=/[?&]ack=1/.test(location.search), pid=Math.random().toString(36).slice(2), drawn=0, seen=0, state=null, sound=false, audio=null, timer=null, cd=null;
function $(id){return document.getElementById(id);}
function send(path){if(ack){var x=new XMLHttpRequest();x.open('GET',path+'&pid='+pid+'&i='+(drawn++),true);x.send();}}
function tone(f,ms){if(!sound)return;try{audio=audio||new (window.AudioContext||window.webkitAudioContext)();
 var o=audio.createOscillator(),g=audio.createGain();o.frequency.value=f;o.connect(g);g.connect(audio.destination);
 o.start();o.stop(audio.currentTime+ms/1000);}catch(e){}}
function say(t){if(sound&&window.speechSynthesis){try{speechSynthesis.speak(new SpeechSynthesisUtterance(t));}catch(e){}}}
$('sound').onclick=function(){sound=!sound;this.textContent=sound?'sound on':'sound off (tap for sound)';};
function draw(s){
 state=s;var box=$('piles');
 if(box.children.length!==s.npiles){box.innerHTML='';for(var p=0;p<s.npiles;p++){var d=document.createElement('div');
  d.className='pile p'+p;d.innerHTML='<div class="name">pile '+p+'</div><div class="top"></div><div class="size"></div>';box.appendChild(d);}}
 for(var p=0;p<s.npiles;p++){var el=box.children[p];el.querySelector('.top').textContent=s.tops[p]||'--';
  el.querySelector('.size').textContent=(s.sizes[p]||0)+' cards';}
 $('phase').textContent=s.phase+(s.ruleset?' \u00b7 '+s.ruleset:'');
 $('round').textContent=s.round?'round '+s.round:'';
 var names=s.players||['player 0','player 1'];
 $('cards').textContent=s.cards&&s.cards[0]!==null&&s.cards[0]!==undefined?'cards at the round\'s start: '+names[0]+' '+s.cards[0]+' | '+names[1]+' '+s.cards[1]:'';
 var q=s.question;$('question').className=q&&s.phase==='question'||q&&q.answer?'':'hidden';
 if(q)$('question').textContent='Question: '+q.text+(q.answer?'  \u2192  '+q.answer:'');
 var r=s.round_end;$('roundend').className=r?'':'hidden';
 if(r)$('roundend').textContent=r.text+(r.piles.length?' \u2014 '+r.piles.join('; '):'');
 var o=s.game_over;$('over').className=o?'':'hidden';
 if(o)$('over').innerHTML='';
 if(o){var sp=document.createElement('span');sp.textContent=o.text+' ';$('over').appendChild(sp);
  (o.summary||[]).forEach(function(l){var d=document.createElement('div');d.className='sum';d.textContent=l;
   $('over').appendChild(d);});
  var a=document.createElement('a');a.href='/replay';a.textContent='the full replay';$('over').appendChild(a);}
 var ol=$('recent');ol.innerHTML='';(s.recent||[]).slice().reverse().forEach(function(v){var li=document.createElement('li');
  li.textContent=v.text;ol.appendChild(li);});
}
function flash(f){
 if(!f||!f.big)return;var el=$('flash'),big=el.querySelector('.big');
 big.textContent=f.big;big.style.background=f.pile!==null&&f.pile!==undefined?COLOURS[f.pile]:(KINDS[f.big]||'#334155');
 big.style.outline='0.8vw solid '+(KINDS[f.big]||'transparent');
 el.querySelector('.dt').textContent=f.dt?'\u0394t '+f.dt:'';el.querySelector('.why').textContent=f.why||'';
 el.querySelector('.why').style.display=f.why?'inline-block':'none';
 el.className='on';clearTimeout(timer);timer=setTimeout(function(){el.className='';},1600);
 if(f.big==='ILLEGAL')tone(220,250);if(f.big==='SPIT!')say('Spit!');if(f.big==='TIE')tone(660,150);
}
function countdown(v){clearInterval(cd);var left=v.ms;$('countdown').textContent=(left/1000).toFixed(1);
 cd=setInterval(function(){left-=100;if(left<=0){clearInterval(cd);$('countdown').textContent='SPIT!';say('Spit!');
 setTimeout(function(){$('countdown').textContent='';},800);}else $('countdown').textContent=(left/1000).toFixed(1);},100);}
function handle(ev){
 if(ev.seq<=seen)return;seen=ev.seq;
 if(ev.state)draw(ev.state);
 if(ev.type==='verdict'){flash(ev.flash);if(ev.verdict.verdict==='countdown')countdown(ev.verdict);
  send('/ack?seq='+ev.seq+'&verdict='+encodeURIComponent(ev.verdict.verdict)+'&t='+ev.verdict.t);}
}
var es=new EventSource('/events');
es.addEventListener('state',function(m){var s=JSON.parse(m.data);seen=Math.max(seen,s.seq);draw(s);
 send('/ack?state='+s.seq+'&tops='+encodeURIComponent(JSON.stringify(s.tops)));});
es.onmessage=function(m){handle(JSON.parse(m.data));};
es.onerror=function(){$('phase').textContent='reconnecting...';};
})();
</script></body></html>
"""
