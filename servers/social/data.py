"""What the seeded network talks about: topics, post and reply wordings, bios and direct
messages, by kind of account."""

from __future__ import annotations

TOPICS = (
    "ai", "devops", "cloud", "security", "remotework", "startups", "saas", "dataengineering", "productivity",
    "leadership", "hiring", "opensource", "webdev", "python", "kubernetes", "customerexperience", "analytics",
    "fintech", "ux", "marketing", "sales", "careers", "observability", "sre", "llm",
)
"""Hashtags people use all year round."""

EVENTS = ("NWSummit", "CloudWeek", "DevDays", "HackFest", "DataConf", "SaaStock", "LaunchWeek", "OpsCon")
"""Hashtags of events: one or two of them trend in the last days of a world."""

PERSON_POSTS = (
    "Spent the morning untangling a flaky test suite. Root cause: a shared temp directory. #{t1}",
    "Hot take: most dashboards are read twice, once when they are built and once when they break. #{t1} #{t2}",
    "Three things I learned this quarter: write it down, ship smaller, ask earlier. #{t1}",
    "Our team just cut deploy time from 40 minutes to 9. Small changes add up. #{t1}",
    "Reading list for the weekend: two papers and one very long post-mortem. #{t1}",
    "If your on-call rotation has no runbooks, you do not have an on-call rotation. #{t1} #{t2}",
    "Interviewing this week and loving the questions candidates ask us. #{t1}",
    "Finally migrated the last service off the old cluster. Goodbye, legacy. #{t1}",
    "Customer calls are the best product research there is. #{t1}",
    "Coffee, a whiteboard and a clear problem statement. That is the whole method. #{t1}",
    "Anyone else find that the hardest part of {t1} is naming things? #{t1}",
    "Shipping a feature is the start of the work, not the end. #{t1} #{t2}",
    "We are hiring in {city}! DM me if you want to hear more. #{t1} #hiring",
    "Gave my first conference talk today. Terrified, then thrilled. #{t1}",
    "A good incident review is blameless and specific. Both are hard. #{t1}",
    "Working from {city} this week and the view is not bad at all. #{t1}",
    "New blog post on what we got wrong about {t1} last year. #{t1}",
    "Pair programming for a full day is exhausting and worth it. #{t1}",
    "Unpopular opinion: meetings without an agenda should be cancelled. #{t1}",
    "Proud of the team at {org} for a great launch this week. #{t1}",
)
NORTHWIND_POSTS = (
    "New in Northwind Cloud: scheduled exports to your own storage bucket. #NorthwindCloud #{t1}",
    "Our {t1} guide is live: a practical checklist for teams of every size. #{t1}",
    "Scheduled maintenance this Saturday 02:00-04:00 UTC. Status updates at status.northwindsystems.com #NorthwindCloud",
    "We are hiring engineers, designers and support specialists. Join us! #hiring #{t1}",
    "Thank you to everyone who joined our webinar on {t1}. Recording is up now. #{t1}",
    "Release notes: faster search, new audit log filters and a dark mode that actually looks good. #NorthwindCloud",
    "Customer story: how a logistics team saved 12 hours a week with automated reports. #customerexperience",
    "Tip of the week: use saved views to share the exact filters your team needs. #NorthwindCloud #productivity",
    "We just published our security whitepaper. #security #NorthwindCloud",
    "Meet us at booth 14 this week! #{t1}",
    "Our API now supports webhooks for every event type. #webdev #NorthwindCloud",
    "Happy to welcome our new customers this month. Great to have you on board! #NorthwindCloud",
)
BRAND_POSTS = (
    "{org} is hiring! See open roles on our careers page. #hiring #{t1}",
    "Our quarterly update is out: new features, new faces and a new office in {city}. #{t1}",
    "Thanks to our amazing customers for another great year. #{t1}",
    "Join our webinar next week on {t1} best practices. #{t1}",
    "We are proud to be a {industry} leader in {city}. #{t1}",
    "Product update: faster, simpler, and now with single sign-on. #{t1} #saas",
    "Our team will be at the big conference this month. Come say hi! #{t1}",
)
COMPLAINTS = (
    "@{me} my support ticket has been open for a week and nobody has answered. Not great.",
    "@{me} exports have been failing for us since yesterday. Any update?",
    "Really frustrated with @{me} today: the dashboard keeps timing out. #fail",
    "@{me} we were billed twice this month. Who can help?",
    "@{me} still waiting on a fix for the sync issue we reported. Please escalate.",
    "Hey @{me}, your status page says all green but our API calls are failing.",
    "@{me} the new update broke our SSO login. Our whole team is locked out.",
    "Three emails and no answer from @{me} support. What is going on?",
)
PRAISE = (
    "Shout-out to @{me} support for fixing our issue in under an hour. #customerexperience",
    "Loving the new release from @{me}. The audit log filters are exactly what we needed.",
    "@{me} scheduled exports just saved my Friday. Thank you!",
    "Been using @{me} for a year now and it keeps getting better. #saas",
    "Great webinar by @{me} today on {t1}. #{t1}",
    "Kudos to the @{me} team for the quick turnaround on our feature request.",
)
NORTHWIND_REPLIES_TO_COMPLAINTS = (
    "Sorry to hear this, {first}. Please send us a DM with your ticket number and we will look into it right away.",
    "We are on it, {first}. Our team is investigating and will follow up shortly.",
    "Apologies for the trouble, {first}! We have escalated this to our support team.",
    "Thanks for flagging, {first}. Could you DM us your account email so we can check?",
)
NORTHWIND_REPLIES_TO_PRAISE = (
    "Thank you, {first}! We will pass this on to the team.",
    "So glad to hear it, {first}!",
    "Thanks for the kind words, {first}! More to come soon.",
)
REPLIES = (
    "Completely agree with this.",
    "Great point. We saw the same thing last year.",
    "Congrats, well deserved!",
    "Interesting, how did you measure it?",
    "This is the way.",
    "Saving this for later.",
    "Could not have said it better.",
    "Love this. Sharing with my team.",
    "Curious how this scales for larger teams?",
    "Same here, and it took us months to notice.",
    "Thanks for writing this up!",
    "Respectfully disagree, but good thread.",
)
QUOTES = (
    "Worth a read.",
    "This is exactly what we have been saying.",
    "Important thread for anyone in {t1}. #{t1}",
    "Big news!",
    "Strongly recommend this.",
    "Agree with every word.",
)
BIOS = (
    "{title} at {org}. Opinions are my own.",
    "{title} | {city} | coffee and {t1}",
    "Building things at {org}. Into {t1} and {t2}.",
    "{title}. Writing about {t1}.",
    "{title} at {org}. Dad jokes and {t1}.",
    "Curious about everything. {title} by day.",
    "",
)
BRAND_BIOS = (
    "The official account of {org}. {industry} from {city}.",
    "{org}: {industry} for modern teams. Support: help@{domain}",
    "News and updates from {org}.",
)
NORTHWIND_BIO = "Official account of Northwind Systems. Product news, tips and support. Support hours 8am-8pm ET."

DM_INBOUND = (
    "Hi! Our ticket is still open. Can someone take a look?",
    "Hello, is there a discount for non-profits?",
    "Could you connect me with your sales team?",
    "Thanks for the quick help yesterday!",
    "We are seeing errors on the export page again.",
    "Do you have a roadmap for the mobile app?",
    "Can I get an invoice copy for last month?",
    "Is the API rate limit per user or per workspace?",
)
DM_OUTBOUND = (
    "Thanks for reaching out! Could you share your account email?",
    "Happy to help. I have passed this to our support team.",
    "Our sales team will be in touch today.",
    "Glad we could help!",
    "We have opened a ticket for you and will follow up by email.",
    "Let me check on that and get back to you.",
)
