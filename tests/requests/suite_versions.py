"""The request suite's version and cut rows (#20 §1 Versions, Narrative): requests as people type them, on the
suite's fresh premise (tests/requests/suite.py), one line each, read through the interpreter.

``OP(tool, {arg: value})``: the request is one clause whose operation is that tool and whose arguments include
these (shot ids are the facts' ``S<n>``, images ``I<n>``, clips ``C<n>``, the cut ``CUT``; a place in the cut is
a position, negative from the end).  ``ASK(reason)``: asked about, nothing done.  Contexts beyond the suite's:
"story" here has each shot's clip and cut; "prev" is a turn before that made shot 3 night (and touched it);
"undone" a turn before that was an undo; "sel=clip4" shot 4's clip selected; "page:edited" / "deck:edited" a
page or a deck whose last turn edited it.  The end-to-end effects on the canvas are
``tests/requests/test_version_requests.py``'s.
"""

from __future__ import annotations

from typing import Any

from nodes.understanding import CanvasFacts, NodeFact
from nodes.understanding.readers import PreviousTurn
from tests.requests.suite import ASK, OP, OPS
from tests.requests.suite import facts_for as suite_facts


def UNDO(n: int, **more: Any) -> OP:
    return OP("undo_change", {"node_id": f"I{n}", **more})


def REVERT(node: str, **selector: Any) -> OP:
    return OP("revert_version", {"node_id": node, **selector})


VERSION_CASES: list[tuple[str, str, Any, str]] = [
    # -- undo: one change, several, the last turn, the undo undone ---------------------------------------------
    ("undo", "undo the last change to shot 2", UNDO(2), "story"),
    ("undo", "undo the last two changes to shot 4", UNDO(4, steps=2), "story"),
    ("undo", "undo the last 3 changes to shot 1", UNDO(1, steps=3), "story"),
    ("undo", "please undo the latest edit on shot 5", UNDO(5), "story"),
    ("undo", "undo what you did to shot 6", UNDO(6), "story"),
    ("undo", "undo shot 7", UNDO(7), "story"),
    ("undo", "undo the last change to the third shot", UNDO(3), "story"),
    ("undo", "undo the last change to the last shot", UNDO(8), "story"),
    ("undo", "undo the last change to shot 2's clip", OP("undo_change", {"node_id": "C2"}), "story"),
    ("undo", "undo the last change to the cut", OP("undo_change", {"node_id": "CUT"}), "story"),
    ("undo", "undo the last change to the final cut", OP("undo_change", {"node_id": "CUT"}), "story"),
    ("undo", "undo this", UNDO(4), "sel=4"),
    ("undo", "undo the last change to it", UNDO(4), "sel=4"),
    ("undo", "undo this", OP("undo_change", {"node_id": "C4"}), "sel=clip4"),
    ("undo", "undo that", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    # "the last change" was read as the last shot: shot 8 reverted, the change made last kept
    ("undo", "revert the last change", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "roll back the last edit", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    # a place after "put shot 1 back" made it a revert of the shot's look (the cut reader does not place it yet)
    ("cut", "put shot 1 back at the start", ASK("unparsed"), "story"),
    ("undo", "undo the last thing you did", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "undo it", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "undo", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "take that back", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "no, undo that", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "that's wrong, undo it", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "revert that", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "go back", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "undo what you just did", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "undo the last change", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "undo the undo", OP("undo_turn", {"turn_id": "T1"}), "undone"),
    ("undo", "undo that", OP("undo_turn", {"turn_id": "T1"}), "undone"),
    # "undo" again after an undo: it took the undo back, so undos toggled and never went two steps back
    ("undo", "undo", ASK("ambiguous"), "undone"),
    ("undo", "undo again", ASK("ambiguous"), "undone"),
    ("undo", "undo the whole last turn", OP("undo_turn"), "prev"),
    ("undo", "undo the last turn", OP("undo_turn"), "story"),
    ("undo", "undo the entire previous request", OP("undo_turn"), "story"),
    ("undo", "undo everything you just did", OP("undo_turn"), "story"),
    # It undid one change of every shot (a shot changed twice kept its first change): asked which is meant.
    ("undo", "undo everything", ASK("ambiguous"), "prev"),
    ("undo", "undo that", OP("page_undo", {}), "page:edited"),
    # what is kept is no part of the change's name (the whole rest named no change: exit 1)
    ("undo", "undo the full-bleed change but keep the new headline", OP("page_undo", {"change": "the full-bleed change"}),
     "page:edited"),
    ("undo", "undo that", OP("deck_undo", {}), "deck:edited"),
    ("undo", "undo the whole last turn", OP("undo_turn"), "deck:edited"),  # the turn, not the deck's last change
    ("undo", "undo the entire previous request", OP("undo_turn"), "page:edited"),
    ("undo", "undo that", ASK("not_found"), "story"),
    ("undo", "undo the last change to shot 12", ASK("not_found"), "story"),
    ("undo", "undo the last change to shot 2", ASK("not_found"), "empty"),
    ("undo", "undo the last change to shot 3", ASK("ambiguous"), "two"),
    ("undo", "undo the last two changes", ASK("no_target"), "story"),
    ("undo", "undo the last change to shot 2 and make shot 3 night", ASK("unparsed"), "story"),
    ("undo", "undo the last change to the cut", ASK("not_found"), "deck"),
    # -- revert: the original, version N, before a named change, a time ----------------------------------------
    ("revert", "revert shot 3 to the original", REVERT("I3", original=True), "story"),
    ("revert", "go back to the original shot 5", REVERT("I5", original=True), "story"),
    ("revert", "reset shot 2", REVERT("I2", original=True), "story"),
    ("revert", "restore the first version of shot 6", REVERT("I6", original=True), "story"),
    ("revert", "put shot 4 back how it was at first", REVERT("I4", original=True), "story"),
    ("revert", "go back to version 2 of the cut", REVERT("CUT", version=2), "story"),
    ("revert", "revert the final cut to v3", REVERT("CUT", version=3), "story"),
    ("revert", "go back to version 2 of shot 4", REVERT("I4", version=2), "story"),
    ("revert", "revert shot 1 to the second version", REVERT("I1", version=2), "story"),
    ("revert", "restore version 4 of shot 7's clip", REVERT("C7", version=4), "story"),
    ("revert", "put shot 5 back to before the neon change", REVERT("I5", before_change="the neon change"), "story"),
    ("revert", "restore shot 5 to how it was before the neon change",
     REVERT("I5", before_change="the neon change"), "story"),
    ("revert", "revert shot 2 to before we made it night", REVERT("I2", before_change="we made it night"), "story"),
    ("revert", "take shot 8 back to before the close-up", REVERT("I8", before_change="the close-up"), "story"),
    ("revert", "revert shot 1 to how it was this morning", REVERT("I1", at="this morning"), "story"),
    ("revert", "restore yesterday's version of shot 3", REVERT("I3", at="yesterday"), "story"),
    ("revert", "roll shot 6 back to how it looked 2 hours ago", REVERT("I6", at="2 hours ago"), "story"),
    ("revert", "revert the cut to how it was an hour ago", REVERT("CUT", at="an hour ago"), "story"),
    ("revert", "revert shot 3", OP("undo_change", {"node_id": "I3"}), "story"),
    ("revert", "go back to the previous version of shot 2", OP("undo_change", {"node_id": "I2"}), "story"),
    ("revert", "revert it to the original", REVERT("I4", original=True), "sel=4"),
    ("revert", "revert shot 3's clip to the original", REVERT("C3", original=True), "story"),
    ("revert", "revert shot 3 to the original", ASK("not_found"), "empty"),
    ("revert", "revert shot 30 to the original", ASK("not_found"), "story"),
    ("revert", "revert it to the original", ASK("no_target"), "story"),
    ("revert", "revert shot 3 to the original and make it dusk", ASK("unparsed"), "story"),
    # -- compare and list: read only ----------------------------------------------------------------------------
    ("compare", "compare the first and the current version of shot 3",
     OP("compare_versions", {"node_id": "I3", "a": "original", "b": "current"}), "story"),
    ("compare", "compare versions 1 and 2 of shot 6", OP("compare_versions", {"node_id": "I6", "a": "original", "b": 2}),
     "story"),
    ("compare", "compare version 2 and version 3 of the cut", OP("compare_versions", {"node_id": "CUT", "a": 2, "b": 3}),
     "story"),
    ("compare", "compare shot 4 with its original", OP("compare_versions", {"node_id": "I4", "a": "original",
                                                                             "b": "current"}), "story"),
    ("compare", "compare the previous and the current version of shot 2",
     OP("compare_versions", {"node_id": "I2", "a": "previous", "b": "current"}), "story"),
    ("compare", "show shot 5's last two versions side by side", ASK("unparsed"), "story"),
    ("compare", "compare the versions of this", OP("compare_versions", {"node_id": "I2"}), "sel=2"),
    # two shots named: each was compared with its own earlier version; no tool sets two outputs side by side
    ("compare", "compare shot 3 to shot 4", ASK("unsupported"), "story"),
    ("compare", "what is the difference between shot 3 and shot 4", ASK("unsupported"), "story"),
    ("compare", "compare the versions of shots 3 and 4",
     OPS(OP("compare_versions", {"node_id": "I3"}), OP("compare_versions", {"node_id": "I4"})), "story"),
    ("compare", "compare shots 3 and 4 with how they were",
     OPS(OP("compare_versions", {"node_id": "I3"}), OP("compare_versions", {"node_id": "I4"})), "story"),
    ("compare", "list the versions of the cut", OP("list_versions", {"node_id": "CUT"}), "story"),
    ("compare", "how many versions of shot 3 are there", OP("question", {"ask": "versions"}), "story"),
    ("compare", "list the versions of shot 4's clip", ASK("unparsed"), "story"),  # the questions reader's: asks
    # -- the cut: reorder, take out, put back, insert, duplicate, retime ------------------------------------------
    ("cut", "swap shots 3 and 4 in the cut", OP("reorder_cut", {"swap": ["S3", "S4"]}), "story"),
    # where a shot goes, said as what it is after ("comes", "it's the 2nd" were asked about)
    ("cut", "move shot 5 so it's the 2nd shot", OP("reorder_cut", {"move": "S5", "to": 2}), "story"),
    ("cut", "move shot 5 so it comes right after shot 2", OP("reorder_cut", {"move": "S5", "after": "S2"}), "story"),
    ("cut", "swap shot 2 with shot 5", OP("reorder_cut", {"swap": ["S2", "S5"]}), "story"),
    ("cut", "switch the order of shots 1 and 2", OP("reorder_cut", {"swap": ["S1", "S2"]}), "story"),
    ("cut", "move shot 6 to the start", OP("reorder_cut", {"move": "S6", "to": 1}), "story"),
    ("cut", "move shot 2 to the end of the cut", OP("reorder_cut", {"move": "S2", "to": -1}), "story"),
    ("cut", "move the last shot to the beginning", OP("reorder_cut", {"move": -1, "to": 1}), "story"),
    ("cut", "move shot 2 after shot 5", OP("reorder_cut", {"move": "S2", "after": "S5"}), "story"),
    ("cut", "put shot 7 before shot 3 in the cut", OP("reorder_cut", {"move": "S7", "before": "S3"}), "story"),
    ("cut", "put shot 7 first", OP("reorder_cut", {"move": "S7", "to": 1}), "story"),
    ("cut", "remove the last shot from the final cut", OP("remove_from_cut", {"shots": [-1]}), "story"),
    ("cut", "remove the last two shots from the cut", OP("remove_from_cut", {"shots": [-2, -1]}), "story"),
    # "or" with words between the shots: both were taken out, exit 0
    ("cut", "remove shot 2 from the cut or shot 3", ASK("ambiguous"), "story"),
    ("cut", "take shot 4 out of the cut", OP("remove_from_cut", {"shots": ["S4"]}), "story"),
    ("cut", "drop shots 2 and 3 from the edit", OP("remove_from_cut", {"shots": ["S2", "S3"]}), "story"),
    ("cut", "cut shot 5", OP("remove_from_cut", {"shots": ["S5"]}), "story"),
    # "the last one" beside a deck asks (suite.py); alone on a film, or said as a shot, it is the cut's last shot
    ("cut", "delete the last shot", OP("remove_from_cut", {"shots": [-1]}), "mixed"),
    ("cut", "delete the last one", OP("remove_from_cut", {"shots": [-1]}), "story"),
    ("cut", "put shot 6 back in the cut", OP("return_to_cut", {"shot": "S6"}), "story"),
    ("cut", "bring shot 4 back into the film", OP("return_to_cut", {"shot": "S4"}), "story"),
    ("cut", "put shot 8 back", OP("return_to_cut", {"shot": "S8"}), "story"),
    # "back in" with no cut named: it undid the shot's image edit, and the shot stayed out of the cut (exit 0)
    ("cut", "put shot 8 back in", OP("return_to_cut", {"shot": "S8"}), "story"),
    # a new shot's description is kept whole: a second shot or a change after it was written into its prompt
    ("cut", "insert a shot of a gull after shot 2, then remove shot 5 from the cut", ASK("unparsed"), "story"),
    ("cut", "add a shot of the sea after shot 3 and one of the sky after shot 5", ASK("unparsed"), "story"),
    ("cut", "add a shot of the sea after shot 3 and make it night", ASK("unparsed"), "story"),
    ("cut", "add a shot of a ship that turns and heads home after shot 3",
     OP("insert_shot", {"description": "a ship that turns and heads home", "after": "S3"}), "story"),
    ("cut", "add a shot of Tova reading the letter between shots 2 and 3",
     OP("insert_shot", {"description": "Tova reading the letter", "after": "S2", "before": "S3"}), "story"),
    ("cut", "add a shot of Mara reading the letter between shots 2 and 3",
     OP("insert_shot", {"description": "Mara reading the letter", "after": "S2", "before": "S3"}), "story"),
    ("cut", "insert a new shot after shot 4 where the bees swarm the hive",
     OP("insert_shot", {"description": "the bees swarm the hive", "after": "S4"}), "story"),
    ("cut", "insert a shot of the city skyline at dusk before shot 1",
     OP("insert_shot", {"description": "the city skyline at dusk", "before": "S1"}), "story"),
    ("cut", "add a shot at the end where Tova walks away", OP("insert_shot", {"description": "Tova walks away",
                                                                              "after": -1}), "story"),
    ("cut", "add a shot of bees", ASK("unparsed"), "story"),
    ("cut", "duplicate shot 4", OP("duplicate_shot", {"shot": "S4"}), "story"),
    ("cut", "make a copy of the last shot", OP("duplicate_shot", {"shot": -1}), "story"),
    ("cut", "make shot 2's clip 3 seconds long", OP("set_clip_duration", {"shot": "S2", "duration_s": 3.0}), "story"),
    ("cut", "make clip 3 2 seconds longer", OP("set_clip_duration", {"shot": "S3", "by_s": 2.0}), "story"),
    ("cut", "shorten shot 5's clip by 1 second", OP("set_clip_duration", {"shot": "S5", "by_s": -1.0}), "story"),
    ("cut", "shot 4's clip should last 2.5 seconds", OP("set_clip_duration", {"shot": "S4", "duration_s": 2.5}),
     "story"),
    ("cut", "make the last clip half a second shorter", OP("set_clip_duration", {"shot": -1, "by_s": -0.5}), "story"),
    ("cut", "swap shots 3 and 4 in the cut", ASK("not_found"), "empty"),
    ("cut", "swap shots 3 and 14", ASK("not_found"), "story"),
    ("cut", "duplicate shot 3", ASK("ambiguous"), "two"),
    ("cut", "move shot 6", ASK("unparsed"), "story"),
    ("cut", "switch shot 3 to night", {3: {"lighting": "night"}}, "story"),
    # "remove" with the rain as its object takes the rain out of the shot, not the shot out of the cut.
    ("cut", "remove the rain from shot 5", {5: {"weather": "clear"}}, "story"),
    ("cut", "remove shot 3 to shot 6 from the cut", OP("remove_from_cut", {"shots": ["S3", "S4", "S5", "S6"]}),
     "story"),
    ("revert", "revert shot 3 to shot 6 to the original", OPS(*(REVERT(f"I{n}", original=True) for n in range(3, 7))),
     "story"),
    # -- two films, each with its cut: "the cut" names neither (it went to the newer film's), a film name picks one
    ("films", "undo the last change to the cut", ASK("ambiguous"), "two"),
    ("films", "revert the cut to the original", ASK("ambiguous"), "two"),
    ("films", "show me the versions of the cut", ASK("ambiguous"), "two"),
    ("films", "compare the original and current version of the cut", ASK("ambiguous"), "two"),
    ("films", "move the last shot to the start of the cut", ASK("ambiguous"), "two"),
    ("films", "undo the last change to the cut", OP("undo_change", {"node_id": "BCUT"}), "two:selB"),
    ("films", "undo the last change to the cut of the beekeeper film", OP("undo_change", {"node_id": "CUT"}), "two"),
    ("films", "undo the last change to the ferry film", OP("undo_change", {"node_id": "BCUT"}), "two"),
    ("films", "undo the last change to shot 2 of the ferry film", OP("undo_change", {"node_id": "BI2"}), "two"),
    ("films", "undo the last change to shot 2 of the beekeeper film", OP("undo_change", {"node_id": "I2"}), "two:selB"),
    ("films", "move the last shot of the ferry film to the start of the cut",
     OP("reorder_cut", {"move": -1, "to": 1, "cut_id": "BCUT"}), "two"),
    ("films", "remove shot 2 of the ferry film from the cut",
     OP("remove_from_cut", {"shots": ["BS2"], "cut_id": "BCUT"}), "two"),
    ("films", "put shot 3 before shot 1 in the ferry film",
     OP("reorder_cut", {"move": "BS3", "before": "BS1", "cut_id": "BCUT"}), "two"),
    ("films", "swap shots 1 and 2 in the beekeeper film", OP("reorder_cut", {"swap": ["S1", "S2"], "cut_id": "CUT"}),
     "two:selB"),
    ("films", "remove shot 2 from the cut", OP("remove_from_cut", {"shots": ["BS2"], "cut_id": "BCUT"}), "two:selB"),
    ("films", "make shot 2 of the ferry film 3 seconds long",
     OP("set_clip_duration", {"shot": "BS2", "duration_s": 3.0, "cut_id": "BCUT"}), "two"),
    ("films", "remove shot 2 of the ferry film from the cut", ASK("unparsed"), "story"),
    # the film's name is no part of what the new shot shows
    ("films", "insert a new shot of the harbour after shot 2 of the ferry film",
     OP("insert_shot", {"after": "BS2", "description": "the harbour", "cut_id": "BCUT"}), "two"),
    # asked needlessly before (2026-12-04, night): "delete" and "get rid of" a shot as "remove" does; "switch" two shots
    ("cut", "delete shot 4", OP("remove_from_cut", {"shots": ["S4"]}), "story"),
    ("cut", "get rid of shot 4", OP("remove_from_cut", {"shots": ["S4"]}), "story"),
    ("cut", "switch shot 4 and shot 5", OP("reorder_cut", {"swap": ["S4", "S5"]}), "story"),
    # a third probe (2026-12-04, night): "switch" beside another clause, another shot or a part of a shot named
    ("cut", "switch shot 4 with shot 5, then make shot 6 night", ASK("unparsed"), "story"),
    ("cut", "delete shot 6 and switch shot 4 and shot 5", ASK("unparsed"), "story"),
    ("cut", "delete shot 5 instead of shot 4", ASK("unparsed"), "story"),
    ("cut", "delete shot 4 like shot 5", ASK("unparsed"), "story"),
    ("cut", "delete shot 4's lighting", ASK("unparsed"), "story"),
    ("cut", "remove shot 4's image", ASK("unparsed"), "story"),
    ("cut", "can you delete shot 4?", OP("remove_from_cut", {"shots": ["S4"]}), "story"),
    ("cut", "delete the 4th shot", OP("remove_from_cut", {"shots": ["S4"]}), "story"),
    ("cut", "delete it", ASK("unparsed"), "sel=3"),
    ("undo", "undo the last one", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "undo the previous one", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("undo", "can you undo the last one?", OP("undo_turn", {"turn_id": "T0"}), "prev"),
    ("cut", "swap shot 2's image with shot 3's", ASK("unparsed"), "story"),
    # "put it back" after an edit was the shot put back into a cut it never left; "switch back" two shots undid
    # both (or swapped two that were never swapped): asked, unless the turn before took it out or swapped them
    ("cut", "put it back", ASK("ambiguous"), "prev"),
    ("cut", "switch back shot 4 and shot 5", ASK("ambiguous"), "prev"),
    ("cut", "switch shots 4 and 5 back", ASK("ambiguous"), "story"),
    ("revert", "switch back shot 4", OP("undo_change", {"node_id": "I4"}), "prev"),
    ("revert", "switch back shot 4 to the original", REVERT("I4", original=True), "prev"),
    # -- a film probe (2026-12-05): the cut
    # a correction in the middle took out both shots
    ("cut", "remove shot 3 actually shot 4", ASK("ambiguous"), "story"),
    # English words corrected into command words: "remote" removed the shot, "cope" duplicated it, "swan" swapped
    ("cut", "remote shot 3", ASK("unparsed"), "story"),
    ("cut", "cope shot 3", ASK("unparsed"), "story"),
    ("cut", "swan shots 2 and 3", ASK("unparsed"), "story"),
    ("cut", "drip shot 3", ASK("unparsed"), "story"),
    ("cut", "movie shot 3 to the end", ASK("unparsed"), "story"),
    ("revert", "revere shot 3", ASK("unparsed"), "story"),
    ("cut", "swpa shots 2 and 3", OP("reorder_cut", {"swap": ["S2", "S3"]}), "story"),
    ("cut", "remvoe shot 3", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    # "repeat that" / "copy that" onto a shot is the last change; a shot copied is still duplicated
    ("cut", "copy shot 5", OP("duplicate_shot", {"shot": "S5"}), "prev"),
    # a film named with a place in its cut: that film's cut
    ("films", "remove the last shot of the ferry film", OP("remove_from_cut", {"shots": [-1], "cut_id": "BCUT"}),
     "two"),
    ("films", "move the first shot of the ferry film to the end", OP("reorder_cut", {"move": 1, "to": -1,
                                                                                       "cut_id": "BCUT"}), "two"),
    ("films", "remove the last shot", ASK("ambiguous"), "two"),
    # "put shot 3 back" after shot 3 was made night: it never left the cut (asked, as "put it back" is)
    ("cut", "put shot 3 back", ASK("ambiguous"), "prev"),
    ("cut", "bring shot 3 back", ASK("ambiguous"), "prev"),
    ("cut", "put shot 3 back in the cut", OP("return_to_cut", {"shot": "S3"}), "prev"),
    ("cut", "put shot 8 back", OP("return_to_cut", {"shot": "S8"}), "prev"),
    # "leave ... in the cut" took the shot out; "put back" and "bring back" said two ways read two ways
    ("cut", "leave shot 3 in the cut", ASK("unparsed"), "story"),
    ("cut", "leave shot 3 out of the cut", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    ("cut", "pls put shot 3 back", OP("return_to_cut", {"shot": "S3"}), "story"),
    ("cut", "bring back shot 3", OP("return_to_cut", {"shot": "S3"}), "story"),
    ("question", "is shot 3 in the cut", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    # one aspect of a shot restored: the whole image was
    ("undo", "reset shot 3's lighting", ASK("unsupported"), "prev"),
    ("undo", "revert the lighting of shot 3", ASK("unsupported"), "prev"),
    ("undo", "undo the night change to shot 3", OP("revert_version", {"before_change": "the night change"}), "prev"),
    ("undo", "what would undo that do?", ASK("unparsed"), "prev"),
    # a new shot's description holding the request's words: a retraction, a replacement, another shot, a sign-off
    ("cut", "add a shot after shot 5 of bees, just kidding", ASK("unparsed"), "story"),
    ("cut", "add a shot after shot 5 of bees instead of shot 6", ASK("unparsed"), "story"),
    ("cut", "add a shot after shot 3 like shot 2", ASK("unparsed"), "story"),
    ("cut", "add a shot after shot 5 of bees", OP("insert_shot", {"after": "S5", "description": "bees"}), "story"),
    # a shot's place in the cut said as what it is, and two shots swapped by their numbers alone (each asked)
    ("cut", "make shot 3 the last shot", OP("reorder_cut", {"move": "S3", "to": -1}), "story"),
    ("cut", "make shot 3 the first one", OP("reorder_cut", {"move": "S3", "to": 1}), "story"),
    ("cut", "open with shot 8", OP("reorder_cut", {"move": "S8", "to": 1}), "story"),
    ("cut", "end on shot 3", OP("reorder_cut", {"move": "S3", "to": -1}), "story"),
    ("cut", "swap 6 and 7 in the cut", OP("reorder_cut", {"swap": ["S6", "S7"]}), "story"),
    ("undo", "reset this lighting", ASK("unsupported"), "sel=4"),
    # "leave shot 3 out" with nothing after it is out of the cut (asked as what not to touch); after a turn that
    # changed shot 3 it may be out of that change (asked); anything after "out" is asked as before
    ("cut", "leave shot 3 out", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    ("cut", "leave shot 3 out pls", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    ("cut", "leave shot 3 out, thanks", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    ("cut", "leave shot 3 out of it pls", ASK("unparsed"), "story"),
    ("cut", "leave out shot 3", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    ("cut", "leave shots 3 and 4 out", OP("remove_from_cut", {"shots": ["S3", "S4"]}), "story"),
    ("cut", "leave shot 3 out", ASK("ambiguous"), "prev"),
    ("cut", "leave shot 3 out", ASK("not_found"), "deck"),
    ("cut", "leave shot 3 out of it", ASK("unparsed"), "story"),
    ("cut", "leave shot 3 out for now", ASK("unparsed"), "story"),
    ("cut", "leave shot 3 out of this", ASK("unparsed"), "story"),
    ("cut", "leave shot 3 as it is", ASK("unparsed"), "story"),
    ("cut", "leave shot 3 alone", ASK("unparsed"), "story"),
    ("cut", "leave shot 3 out of the changes, make the rest night", ASK("unparsed"), "story"),
    # a number typed against its noun ("shot3"): read as "shot 3" (asked about)
    ("cut", "swap shot3 and shot4 in the cut", OP("reorder_cut", {"swap": ["S3", "S4"]}), "story"),
    ("cut", "remove shot3 from the cut", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    ("cut", "make shot3's clip 3 seconds long", OP("set_clip_duration", {"shot": "S3", "duration_s": 3.0}), "story"),
    # a shot taken back right after it is said ("..., no wait, 3"; asked, instead or as well): the one after it; an
    # emoji after "leave shot 3 out" no longer hides the phrasing
    ("cut", "remove shot 2, no wait, 3", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    ("cut", "leave shot 3 out 🙂", OP("remove_from_cut", {"shots": ["S3"]}), "story"),
    # a removal's verb said again ("remove shot 2, then remove shot 3": asked, the second verb unread) takes both out;
    # a shot taken back after "the last change to" ("to" is no range there) is the one after it.  "take ... back",
    # another verb, and a shot edit after a removal (no turn carries a cut change and a shot edit together) still ask
    ("cut", "remove shot 2, then remove shot 3", OP("remove_from_cut", {"shots": ["S2", "S3"]}), "story"),
    ("cut", "delete shot 2 and delete shot 3", OP("remove_from_cut", {"shots": ["S2", "S3"]}), "story"),
    ("cut", "remove shot 2, then delete shot 3 pls", OP("remove_from_cut", {"shots": ["S2", "S3"]}), "story"),
    ("cut", "remove shot 2, then remove shot 2", OP("remove_from_cut", {"shots": ["S2"]}), "story"),
    ("cut", "take shot 2 out of the cut and take shot 3 back", ASK("unparsed"), "story"),
    ("cut", "remove shot 2, then regenerate shot 3", ASK("unparsed"), "story"),
    ("cut", "remove shot 2 then make shot 4 night", ASK("unparsed"), "story"),
    ("cut", "remove shot 2. remove shot 3", ASK("unparsed"), "story"),
    ("undo", "undo the last change to shot 2, no wait, 3", UNDO(3), "prev"),
    ("undo", "undo what you did to shot 2, sorry, 3", UNDO(3), "prev"),
    ("undo", "undo the last change to shot 2, no wait", ASK("unparsed"), "prev"),
    ("undo", "undo the last change to shot 2, actually 3", ASK("ambiguous"), "prev"),
    ("undo", "undo the last change to shot 1 and shot 2, no wait, 3", ASK("ambiguous"), "prev"),
    ("undo", "undo the last change to shot 2, no wait, 3 and 4", ASK("ambiguous"), "prev"),
    ("cut", "remove shot 1 to shot 2, no wait, 3", ASK("ambiguous"), "story"),
    # -- probe-81 rows: undo and revert beside other changes, inserted shots, clip lengths
    # an undo or a revert beside a clause with a verb of its own: every shot named was read as the undo's ("cut" as
    # the cut, "put ... back" and "do" as its words), undoing the cut's and each shot's last change: asked
    ("cut", "cut shot 4 and put shot 8 back", ASK("unparsed"), "story"),
    ("cut", "put shot 8 back and cut shot 4", ASK("unparsed"), "story"),
    ("cut", "cut shot 4, put shot 8 back", ASK("unparsed"), "story"),
    ("cut", "cut shot 4 then put shot 8 back", ASK("unparsed"), "story"),
    ("cut", "bring back shot 8 and cut shot 4", ASK("unparsed"), "story"),
    ("undo", "undo shot 3 and cut shot 4", ASK("unparsed"), "story"),
    ("undo", "revert shot 3 and cut shot 4", ASK("unparsed"), "story"),
    ("undo", "undo shot 3 and put shot 4 back", ASK("unparsed"), "story"),
    ("undo", "revert shot 3 to the original and do shot 4", ASK("unparsed"), "story"),
    ("undo", "undo the night change to shot 3 and cut shot 4", ASK("unparsed"), "prev"),
    ("undo", "revert shot 3 and do shot 4", ASK("unparsed"), "prev"),
    ("undo", "undo shot 3 and do shot 4", ASK("unparsed"), "prev"),
    ("undo", "undo shot 3 and do shot 4 instead", ASK("unparsed"), "prev"),
    ("undo", "revert shot 3, do shot 4", ASK("unparsed"), "prev"),
    ("undo", "undo shot 3 and make shot 4 night", ASK("unparsed"), "prev"),
    # more shots after "put shot 8 back" ("..., and shot 7 too") undid both images: into the cut, as "put shots 7
    # and 8 back"
    ("cut", "put shot 8 back, and shot 7 too", OPS(OP("return_to_cut", {"shot": "S8"}),
                                                   OP("return_to_cut", {"shot": "S7"})), "story"),
    ("cut", "put shot 8 back and shot 7 as well", OPS(OP("return_to_cut", {"shot": "S8"}),
                                                      OP("return_to_cut", {"shot": "S7"})), "story"),
    # a length taken off a clip or added to it was read as its new length ("trim 2 seconds from shot 4" set 2 s); a
    # range set its last number
    ("cut", "trim 2 seconds from shot 4", OP("set_clip_duration", {"shot": "S4", "by_s": -2.0}), "story"),
    ("cut", "cut 2 seconds from shot 4", OP("set_clip_duration", {"shot": "S4", "by_s": -2.0}), "story"),
    ("cut", "take 2 seconds off shot 4", OP("set_clip_duration", {"shot": "S4", "by_s": -2.0}), "story"),
    ("cut", "shave a second off shot 6's clip", OP("set_clip_duration", {"shot": "S6", "by_s": -1.0}), "story"),
    ("cut", "add 2 seconds to shot 4", OP("set_clip_duration", {"shot": "S4", "by_s": 2.0}), "story"),
    ("cut", "trim shot 4 to 1.5 seconds", OP("set_clip_duration", {"shot": "S4", "duration_s": 1.5}), "story"),
    ("cut", "make shot 4 3-4 seconds", ASK("unparsed"), "story"),
    ("cut", "make shot 4 3 to 4 seconds long", ASK("unparsed"), "story"),
    ("cut", "make shot 4 between 3 and 4 seconds", ASK("unparsed"), "story"),
    ("cut", "cut shots 2 and 3 to 2 seconds", ASK("unparsed"), "story"),
    # a new shot's place said as where it does not go, or as two shots, was placed after the first shot named, the
    # rest written into its description ("the hive, not", "the hive and 6"); a place it is not that confirms the place
    # is no part of the description; a "not" in the description is asked (the image draws what it names)
    ("cut", "add a shot of the hive, not after shot 4", ASK("unparsed"), "story"),
    ("cut", "add a shot of the hive but not after shot 4", ASK("unparsed"), "story"),
    ("cut", "add a shot of the hive after shots 4 and 6", ASK("unparsed"), "story"),
    ("cut", "add a shot of the hive after shot 4 and shot 6", ASK("unparsed"), "story"),
    ("cut", "add a shot of the hive after shot 4, not 5", OP("insert_shot", {"after": "S4", "description": "the hive"}),
     "story"),
    ("cut", "add a shot of the hive after shot 4 not before it",
     OP("insert_shot", {"after": "S4", "description": "the hive"}), "story"),
    ("cut", "add a shot of the hive before shot 4, not after it",
     OP("insert_shot", {"before": "S4", "description": "the hive"}), "story"),
    ("cut", "add a shot of the hive after shot 4, not 4", ASK("unparsed"), "story"),
    ("cut", "add a shot of the hive after shot 4, not after it", ASK("unparsed"), "story"),
    ("cut", "add a shot of the hive after shot 4, don't show tova", ASK("unparsed"), "story"),
    ("cut", "add a shot of the hive, but not at night, after shot 4", ASK("unparsed"), "story"),
    # (end of these rows)
]


def facts_for(context: str) -> tuple[CanvasFacts, PreviousTurn]:
    """The facts and the previous turn of a version row's context (the suite's, with each shot's clip and cut)."""
    base = {"page:edited": "page", "deck:edited": "deck", "undone": "story", "sel=clip4": "story"}.get(context, context)
    facts, previous = suite_facts(base)
    for shot in facts.shots:
        shot.clip, shot.cut = (shot.derived + [None, None])[:2]
    if context == "prev":
        previous.touched = ["I3", "C3", "CUT"]
    if context == "undone":
        previous = PreviousTurn(turn_id="T1", request="undo that", touched=["I3", "C3", "CUT"],
                                clauses=[{"operation": "undo_turn", "args": {"turn_id": "T0"}}])
    if context == "sel=clip4":
        facts.selection = [NodeFact(id="C4", kind="video", title="shot 4 clip", shot="S4")]
    if context == "page:edited":
        previous = PreviousTurn(turn_id="T0", request="make the hero full-bleed", targets=["PAGE"],
                                touched=["PAGE"], clauses=[{"operation": "revise_page"}])
    if context == "deck:edited":
        previous = PreviousTurn(turn_id="T0", request="delete the last slide", targets=["D1"], touched=["D1"],
                                clauses=[{"operation": "deck_delete_slide", "args": {"slide": 5}}])
    return facts, previous
