"""Social: a Twitter-like network of accounts, posts, replies, quotes, likes, reposts, follows,
hashtags, blocks, mutes, direct messages and notifications."""

from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.social.models import Base
from mcpgym.servers.social.seed import populate
from mcpgym.servers.social.tools import tools

SERVER = ServerSpec(
    name="social",
    title="Twitter-like social network",
    instructions=(
        "You are signed in to the social network as @NorthwindSys (account 1), the brand account of Northwind "
        "Systems, run by its social media and customer care team; get_user with user_id 1 says who you are. "
        "Posts you publish, reply, quote, like, repost, edit or delete are the brand's, and so are its follows, "
        "blocks, mutes, direct messages and notifications. Accounts belong to people (their work email, name and "
        "company) or to companies (brand accounts); each has a unique @handle and an integer id, and so does "
        "every post (a reply names the post it answers, a quote the post it quotes). A post mentions an account "
        "by writing @handle and tags a topic with #hashtag. Times are UTC, ISO 8601 (e.g. 2025-11-12T17:00:00Z).\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- Blocking works both ways: an account you blocked or that blocked you cannot be followed, mentioned, "
        "messaged, replied to, quoted, liked or reposted (unblock it first, if you are the one who blocked).\n"
        "- A post, reply or quote is at most 280 characters.\n"
        "- Only a post's author may edit or delete it.\n"
        "- A post can be edited only within 60 minutes of posting; after that, delete it and post again.\n"
        "- A post is liked at most once and reposted at most once by an account: no duplicate likes or reposts.\n"
        "- Direct messages go only to accounts that follow you or accept messages from everyone (open DMs).\n"
        "- The same text cannot be posted twice within 24 hours: duplicate posts are refused."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
